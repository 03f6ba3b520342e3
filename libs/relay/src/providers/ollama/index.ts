export { ollamaAdaptor } from './adaptor.js';
