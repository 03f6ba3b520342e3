export { baiduAdaptor } from './adaptor.js';
export { clearBaiduTokens } from './access-token.js';
