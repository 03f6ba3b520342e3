export { difyAdaptor } from './adaptor.js';
export { difyCodec, DIFY_DEFAULT_USER } from './codec.js';
