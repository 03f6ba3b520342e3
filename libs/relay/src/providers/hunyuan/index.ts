export { hunyuanAdaptor } from './adaptor.js';
export { tc3Authorization } from './tc3.js';
