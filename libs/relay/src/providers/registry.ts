import { ChannelType, channelTypeInfo } from '@gw/contracts';
import { aiProxyLibraryAdaptor } from './ai-proxy-library/index.js';
import { anthropicAdaptor, anthropicCodec } from './anthropic/index.js';
import { baiduAdaptor } from './baidu/index.js';
import { dashScopeAdaptor } from './dashscope/index.js';
import { bedrockAdaptor } from './bedrock/index.js';
import { cohereAdaptor, cohereCodec, cohereV2Codec } from './cohere/index.js';
import { cozeAdaptor, cozeCodec } from './coze/index.js';
import { difyAdaptor, difyCodec } from './dify/index.js';
import { geminiAdaptor, geminiCodec } from './gemini/index.js';
import { hunyuanAdaptor } from './hunyuan/index.js';
import { ollamaAdaptor } from './ollama/index.js';
import { openAiAdaptor, openAiCodec } from './openai/codec.js';
import { responsesCodec } from './openai/responses-codec.js';
import { sparkAdaptor } from './spark/index.js';
import { palmAdaptor } from './palm/index.js';
import type { ChannelAdaptor, FormatCodec, FormatId, ProviderCodec } from './types.js';
import { zhipuV3Adaptor } from './zhipu-v3/index.js';
import { replicateAdaptor, replicateCodec } from './replicate/index.js';
import { vertexAdaptor } from './vertex/index.js';

/**
 * Which wire format each provider family speaks, and which adaptor calls each channel type. A new
 * provider is a folder under providers/ and one line here. Types not listed that speak OpenAI's wire
 * format (OpenAI, Azure, custom URL, DeepSeek, ...) use the OpenAI adaptor, as in new-api.
 */
const CODECS: Record<FormatId, FormatCodec> = {
  openai: openAiCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  responses: responsesCodec,
  dify: difyCodec,
  cohere: cohereCodec,
  cohere_v2: cohereV2Codec,
  coze: cozeCodec,
  replicate: replicateCodec,
};

const ADAPTORS = new Map<number, ChannelAdaptor>([
  [ChannelType.Anthropic, anthropicAdaptor],
  [ChannelType.Gemini, geminiAdaptor],
  // Native wire formats, part A of issue #18 (each folder's codec.ts names the document its shapes follow).
  [ChannelType.Ollama, ollamaAdaptor],
  [ChannelType.PaLM, palmAdaptor],
  [ChannelType.Baidu, baiduAdaptor],
  [ChannelType.Zhipu, zhipuV3Adaptor],
  [ChannelType.Ali, dashScopeAdaptor],
  [ChannelType.Xunfei, sparkAdaptor],
  [ChannelType.AIProxyLibrary, aiProxyLibraryAdaptor],
  [ChannelType.Tencent, hunyuanAdaptor],
  // Adaptors part B (issue #18): cloud-hosted Claude/Gemini and app platforms.
  [ChannelType.Aws, bedrockAdaptor],
  [ChannelType.VertexAi, vertexAdaptor],
  [ChannelType.Cohere, cohereAdaptor],
  [ChannelType.Dify, difyAdaptor],
  [ChannelType.Coze, cozeAdaptor],
  [ChannelType.Replicate, replicateAdaptor],
]);

export function codecOf(format: FormatId): FormatCodec {
  return CODECS[format];
}

/** The adaptor of a channel type, or undefined when the relay cannot call that type yet. */
export function adaptorOf(channelType: number): ChannelAdaptor | undefined {
  return ADAPTORS.get(channelType) ?? (channelTypeInfo(channelType)?.openAiCompatible ? openAiAdaptor : undefined);
}

/** The codec that talks to an adaptor's provider: its own (provider-only formats) or its format's. */
export function providerCodecOf(adaptor: ChannelAdaptor): ProviderCodec {
  return adaptor.codec ?? codecOf(adaptor.format);
}
