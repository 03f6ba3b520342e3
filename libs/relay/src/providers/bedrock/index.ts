export { bedrockAdaptor, parseAwsKey, BEDROCK_ANTHROPIC_VERSION } from './adaptor.js';
export { BedrockEventStreamReader } from './event-stream.js';
export { bedrockModelId } from './model-ids.js';
