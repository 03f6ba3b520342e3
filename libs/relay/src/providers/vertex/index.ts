export { vertexAdaptor, vertexClaudeModel, vertexRegion, vertexTokens, VERTEX_ANTHROPIC_VERSION } from './adaptor.js';
export { vertexEmbeddingShape } from './embeddings.js';
export { AccessTokenCache, parseServiceAccount, signedAssertion, type ServiceAccount } from './access-token.js';
