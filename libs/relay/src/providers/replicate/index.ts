export { replicateAdaptor, replicateCodec } from './adaptor.js';
