export { cozeAdaptor } from './adaptor.js';
export { cozeCodec, cozeUsage, COZE_DEFAULT_USER } from './codec.js';
