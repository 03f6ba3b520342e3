export { aiProxyLibraryAdaptor } from './adaptor.js';
