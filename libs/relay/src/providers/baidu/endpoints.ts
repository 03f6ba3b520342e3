/**
 * The ERNIE v1 endpoint of each model name new-api knows (Baidu's wenxinworkshop API list); other names
 * are called by their lower-cased name, as new-api does.
 */
const ENDPOINTS: Record<string, string> = {
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-3.5-8K-0205': 'ernie-3.5-8k-0205',
  'ERNIE-3.5-8K-1222': 'ernie-3.5-8k-1222',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-3.5-4K-0205': 'ernie-3.5-4k-0205',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed-128K': 'ernie-speed-128k',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'BLOOMZ-7B': 'bloomz_7b1',
  'Embedding-V1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

const EMBEDDING = /^(Embedding|bge-large|tao-8k)/;

/** `chat/<endpoint>` or `embeddings/<endpoint>` under /rpc/2.0/ai_custom/v1/wenxinworkshop/. */
export function baiduPath(model: string): string {
  const kind = EMBEDDING.test(model) ? 'embeddings' : 'chat';
  const endpoint = ENDPOINTS[model] ?? model.toLowerCase();
  return `/rpc/2.0/ai_custom/v1/wenxinworkshop/${kind}/${encodeURIComponent(endpoint)}`;
}
