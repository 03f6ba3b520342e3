export { sparkAdaptor } from './adaptor.js';
export { sparkSignedUrl } from './signed-url.js';
