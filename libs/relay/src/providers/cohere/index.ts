export { cohereAdaptor } from './adaptor.js';
export { cohereCodec, cohereUsage } from './codec.js';
