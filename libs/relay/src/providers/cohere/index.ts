export { cohereAdaptor } from './adaptor.js';
export { cohereCodec, cohereUsage } from './codec.js';
export { cohereV2Codec } from './codec-v2.js';
