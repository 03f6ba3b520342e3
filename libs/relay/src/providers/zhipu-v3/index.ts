export { zhipuV3Adaptor } from './adaptor.js';
export { zhipuToken } from './jwt.js';
