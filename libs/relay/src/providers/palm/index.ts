export { palmAdaptor } from './adaptor.js';
