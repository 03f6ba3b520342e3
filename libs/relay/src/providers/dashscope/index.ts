export { dashScopeAdaptor } from './adaptor.js';
