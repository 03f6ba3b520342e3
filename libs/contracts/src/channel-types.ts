/**
 * Channel types by numeric id (new-api `constant/channel.go`, spec 000 §3): display name, default base
 * URL, the key format the form asks for, and the models built into each adaptor (`GET /api/models`).
 */
export interface ChannelTypeInfo {
  id: number;
  name: string;
  /** Default base URL when the channel leaves base_url empty ('' = the admin must give one). */
  baseUrl: string;
  /** Help text for the key field (its format). */
  keyHelp?: string;
  /** Help for the `other` field and its default. */
  otherHelp?: string;
  otherDefault?: string;
  /** OpenAI-compatible chat endpoint: the upstream client can call it today. */
  openAiCompatible: boolean;
  /** Path prefix for OpenAI-compatible endpoints (default `/v1`). */
  pathPrefix?: string;
  /** Full chat path when the provider's OpenAI-style chat lives elsewhere (MiniMax's chatcompletion_v2). */
  chatPath?: string;
  models: readonly string[];
  /** How the provider reports the account balance (`GET /api/channel/update_balance`); none = 'not supported'. */
  balance?: BalanceKind;
}

/**
 * Balance APIs (new-api controller/channel-billing.go): `openai` is the billing subscription minus the
 * usage; the others are one GET answering the provider's own shape.
 */
export type BalanceKind =
  | 'openai'
  | 'credit_grants_remaining'
  | 'credit_grants_available'
  | 'siliconflow'
  | 'deepseek'
  | 'openrouter'
  | 'moonshot';

export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  OpenAIMax: 6,
  OhMyGPT: 7,
  Custom: 8,
  AILS: 9,
  AIProxy: 10,
  PaLM: 11,
  API2GPT: 12,
  AIGC2D: 13,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  Ai360: 19,
  OpenRouter: 20,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Perplexity: 27,
  LingYiWanWu: 31,
  Aws: 33,
  Cohere: 34,
  MiniMax: 35,
  SunoAPI: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAi: 41,
  Mistral: 42,
  DeepSeek: 43,
  MokaAI: 44,
  VolcEngine: 45,
  BaiduV2: 46,
  Xinference: 47,
  Xai: 48,
  Coze: 49,
  Kling: 50,
  Jimeng: 51,
  Vidu: 52,
  Submodel: 53,
  DoubaoVideo: 54,
  Sora: 55,
  Replicate: 56,
  Codex: 57,
} as const;

const OPENAI_MODELS = [
  'gpt-3.5-turbo',
  'gpt-3.5-turbo-0125',
  'gpt-3.5-turbo-16k',
  'gpt-3.5-turbo-instruct',
  'gpt-4',
  'gpt-4-turbo',
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4o-2024-08-06',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'o1',
  'o1-mini',
  'o3',
  'o3-mini',
  'o4-mini',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'chatgpt-4o-latest',
  'text-embedding-ada-002',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'text-moderation-latest',
  'text-moderation-stable',
  'dall-e-2',
  'dall-e-3',
  'gpt-image-1',
  'whisper-1',
  'tts-1',
  'tts-1-hd',
];
const CLAUDE_MODELS = [
  'claude-3-haiku-20240307',
  'claude-3-5-haiku-20241022',
  'claude-3-5-sonnet-20241022',
  'claude-3-7-sonnet-20250219',
  'claude-sonnet-4-20250514',
  'claude-opus-4-20250514',
  'claude-opus-4-1-20250805',
  'claude-sonnet-4-5-20250929',
];
const GEMINI_MODELS = [
  'gemini-1.5-pro',
  'gemini-1.5-flash',
  'gemini-2.0-flash',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'text-embedding-004',
];
const MJ_MODELS = [
  'mj_imagine',
  'mj_variation',
  'mj_reroll',
  'mj_blend',
  'mj_upscale',
  'mj_describe',
  'mj_zoom',
  'mj_shorten',
  'mj_modal',
  'mj_inpaint',
  'mj_custom_zoom',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
  'swap_face',
  'mj_upload',
];

function t(id: number, name: string, baseUrl: string, models: readonly string[], extra: Partial<ChannelTypeInfo> = {}): ChannelTypeInfo {
  return { id, name, baseUrl, models, openAiCompatible: false, ...extra };
}
const oa = { openAiCompatible: true } as const;

export const CHANNEL_TYPES: readonly ChannelTypeInfo[] = [
  t(1, 'OpenAI', 'https://api.openai.com', OPENAI_MODELS, { ...oa, balance: 'openai' }),
  t(2, 'Midjourney Proxy', '', MJ_MODELS),
  t(3, 'Azure OpenAI', '', OPENAI_MODELS, {
    openAiCompatible: true,
    otherHelp: 'api-version (default AZURE_DEFAULT_API_VERSION)',
    keyHelp: 'Azure OpenAI API key',
  }),
  t(4, 'Ollama', 'http://localhost:11434', ['llama3.1', 'qwen2.5', 'deepseek-r1'], { ...oa, keyHelp: 'optional' }),
  t(5, 'Midjourney Proxy Plus', '', MJ_MODELS),
  t(6, 'OpenAI Max', 'https://api.openaimax.com', OPENAI_MODELS, oa),
  t(7, 'OhMyGPT', 'https://api.ohmygpt.com', OPENAI_MODELS, oa),
  t(8, 'Custom', '', [], { ...oa, keyHelp: 'API key', otherHelp: 'base_url is the full request URL; {model} is replaced by the model' }),
  t(9, 'AILS', 'https://api.caipacity.com', OPENAI_MODELS, oa),
  t(10, 'AI Proxy', 'https://api.aiproxy.io', OPENAI_MODELS, oa),
  t(11, 'Google PaLM2', 'https://generativelanguage.googleapis.com', ['PaLM-2']),
  t(12, 'API2GPT', 'https://api.api2gpt.com', OPENAI_MODELS, { ...oa, balance: 'credit_grants_remaining' }),
  t(13, 'AIGC2D', 'https://api.aigc2d.com', OPENAI_MODELS, { ...oa, balance: 'credit_grants_available' }),
  t(14, 'Anthropic Claude', 'https://api.anthropic.com', CLAUDE_MODELS),
  t(15, 'Baidu Wenxin', 'https://aip.baidubce.com', ['ERNIE-4.0-8K', 'ERNIE-3.5-8K', 'ERNIE-Speed-128K', 'ERNIE-Lite-8K', 'Embedding-V1'], {
    keyHelp: 'APIKey|SecretKey',
  }),
  t(16, 'Zhipu ChatGLM', 'https://open.bigmodel.cn', ['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite']),
  t(
    17,
    'Alibaba Qwen',
    'https://dashscope.aliyuncs.com',
    ['qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-max-longcontext', 'text-embedding-v1'],
    {
      otherHelp: 'plugin parameter (X-DashScope-Plugin)',
    },
  ),
  t(18, 'iFlytek Spark', '', ['SparkDesk', 'SparkDesk-v1.1', 'SparkDesk-v2.1', 'SparkDesk-v3.1', 'SparkDesk-v3.5', 'SparkDesk-v4.0'], {
    keyHelp: 'APPID|APISecret|APIKey',
    otherHelp: 'API version',
    otherDefault: 'v2.1',
  }),
  t(19, '360 Zhinao', 'https://api.360.cn', ['360GPT_S2_V9', 'embedding-bert-512-v1', 'embedding_s1_v1', 'semantic_similarity_s1_v1'], oa),
  t(
    20,
    'OpenRouter',
    'https://openrouter.ai/api',
    ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.5-flash'],
    { ...oa, balance: 'openrouter' },
  ),
  t(21, 'AI Proxy Library', 'https://api.aiproxy.io', [], { keyHelp: 'API key', otherHelp: 'knowledge base ID' }),
  t(22, 'FastGPT', 'https://fastgpt.run/api/openapi', [], { ...oa, keyHelp: 'APIKey-AppId' }),
  t(23, 'Tencent Hunyuan', 'https://hunyuan.tencentcloudapi.com', ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-pro'], {
    keyHelp: 'AppId|SecretId|SecretKey',
  }),
  t(24, 'Google Gemini', 'https://generativelanguage.googleapis.com', GEMINI_MODELS, { otherHelp: 'API version (v1beta)' }),
  t(25, 'Moonshot', 'https://api.moonshot.cn', ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k', 'kimi-k2-0711-preview'], {
    ...oa,
    balance: 'moonshot',
  }),
  t(26, 'Zhipu GLM-4', 'https://open.bigmodel.cn', ['glm-4', 'glm-4v', 'glm-4-plus', 'glm-4-flash', 'glm-4.5', 'embedding-2'], {
    ...oa,
    pathPrefix: '/api/paas/v4',
  }),
  t(
    27,
    'Perplexity',
    'https://api.perplexity.ai',
    ['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research'],
    { ...oa, pathPrefix: '' },
  ),
  t(31, '01.AI', 'https://api.lingyiwanwu.com', ['yi-large', 'yi-medium', 'yi-vision', 'yi-spark', 'yi-lightning'], oa),
  t(33, 'AWS Claude', '', CLAUDE_MODELS, { keyHelp: 'Ak|Sk|Region' }),
  t(34, 'Cohere', 'https://api.cohere.ai', [
    'command-r',
    'command-r-plus',
    'command-light',
    'rerank-english-v3.0',
    'rerank-multilingual-v3.0',
  ]),
  t(35, 'MiniMax', 'https://api.minimax.chat', ['abab6.5-chat', 'abab6.5s-chat', 'abab5.5-chat', 'MiniMax-Text-01'], {
    ...oa,
    chatPath: '/v1/text/chatcompletion_v2',
  }),
  t(36, 'Suno API', '', ['suno_music', 'suno_lyrics']),
  t(37, 'Dify', 'https://api.dify.ai', [], { keyHelp: 'app API key' }),
  t(38, 'Jina', 'https://api.jina.ai', ['jina-clip-v1', 'jina-reranker-v2-base-multilingual', 'jina-embeddings-v3'], oa),
  t(
    39,
    'Cloudflare Workers AI',
    'https://api.cloudflare.com',
    ['@cf/meta/llama-3.1-8b-instruct', '@cf/qwen/qwen1.5-14b-chat-awq', '@cf/baai/bge-base-en-v1.5'],
    {
      ...oa,
      keyHelp: 'API token',
      otherHelp: 'account ID',
    },
  ),
  t(
    40,
    'SiliconCloud',
    'https://api.siliconflow.cn',
    ['deepseek-ai/DeepSeek-V3', 'deepseek-ai/DeepSeek-R1', 'Qwen/Qwen2.5-72B-Instruct', 'BAAI/bge-m3'],
    { ...oa, balance: 'siliconflow' },
  ),
  t(41, 'Vertex AI', '', [...GEMINI_MODELS, ...CLAUDE_MODELS], {
    keyHelp: 'service-account JSON',
    otherHelp: 'region',
    otherDefault: 'us-central1',
  }),
  t(
    42,
    'Mistral AI',
    'https://api.mistral.ai',
    ['open-mistral-7b', 'open-mixtral-8x7b', 'mistral-small-latest', 'mistral-medium-latest', 'mistral-large-latest', 'mistral-embed'],
    oa,
  ),
  t(43, 'DeepSeek', 'https://api.deepseek.com', ['deepseek-chat', 'deepseek-reasoner', 'deepseek-coder'], { ...oa, balance: 'deepseek' }),
  // M3E's embeddings API is OpenAI's shape at {base}/embeddings (new-api's mokaai adaptor).
  t(44, 'MokaAI M3E', 'https://api.moka.ai', ['m3e-large', 'm3e-base', 'm3e-small'], { ...oa, pathPrefix: '' }),
  t(
    45,
    'Volcengine Doubao',
    'https://ark.cn-beijing.volces.com',
    ['Doubao-pro-128k', 'Doubao-pro-32k', 'Doubao-lite-32k', 'Doubao-embedding'],
    {
      ...oa,
      pathPrefix: '/api/v3',
    },
  ),
  t(46, 'Baidu Qianfan V2', 'https://qianfan.baidubce.com', ['ernie-4.0-8k-latest', 'ernie-3.5-8k', 'ernie-speed-128k', 'deepseek-v3'], {
    ...oa,
    pathPrefix: '/v2',
  }),
  t(47, 'Xinference', '', ['qwen2.5-instruct', 'llama-3.1-instruct', 'bge-reranker-v2-m3'], oa),
  t(48, 'xAI', 'https://api.x.ai', ['grok-2', 'grok-2-vision', 'grok-3', 'grok-3-mini', 'grok-4'], oa),
  t(49, 'Coze', 'https://api.coze.cn', [], { otherHelp: 'bot ID' }),
  t(50, 'Kling', 'https://api.klingai.com', ['kling-v1', 'kling-v1-6', 'kling-v2-master']),
  t(51, 'Jimeng', 'https://visual.volcengineapi.com', ['jimeng_vgfm_t2v_l20']),
  t(52, 'Vidu', 'https://api.vidu.cn', ['viduq1', 'vidu2.0', 'vidu1.5']),
  t(53, 'Submodel', 'https://llm.submodel.ai', ['deepseek-ai/DeepSeek-V3-0324', 'Qwen/Qwen3-235B-A22B'], oa),
  t(54, 'Doubao Video', 'https://ark.cn-beijing.volces.com', ['doubao-seedance-1-0-pro-250528']),
  t(55, 'Sora', 'https://api.openai.com', ['sora-2', 'sora-2-pro']),
  t(56, 'Replicate', 'https://api.replicate.com', ['black-forest-labs/flux-schnell']),
  t(57, 'Codex', 'https://chatgpt.com', ['gpt-5-codex']),
];

const BY_ID = new Map(CHANNEL_TYPES.map((type) => [type.id, type]));

export function channelTypeInfo(type: number): ChannelTypeInfo | undefined {
  return BY_ID.get(type);
}

export function isKnownChannelType(type: number): boolean {
  return BY_ID.has(type);
}

/** `GET /api/models`: `{"<type>": [models]}` for every type. */
export function builtInModelsByType(): Record<string, string[]> {
  return Object.fromEntries(CHANNEL_TYPES.map((type) => [String(type.id), [...type.models]]));
}

/** `GET /api/channel/models`: every built-in model once, with the type that owns it first. */
export function builtInModelList(): { id: string; object: 'model'; owned_by: string }[] {
  const seen = new Map<string, string>();
  for (const type of CHANNEL_TYPES) for (const model of type.models) if (!seen.has(model)) seen.set(model, type.name);
  return [...seen].map(([id, owner]) => ({ id, object: 'model' as const, owned_by: owner }));
}
