export { bedrockAdaptor, parseAwsKey, BEDROCK_ANTHROPIC_VERSION } from './adaptor.js';
export { BedrockEventStreamReader, eventStreamCodec } from './event-stream.js';
export { bedrockModelId } from './model-ids.js';
