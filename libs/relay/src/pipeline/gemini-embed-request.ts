import { checkModel } from './model-name.js';
import { badRequest } from './relay-error.js';
import type { RelayRequest, RouteFacts } from './relay-request.js';

/**
 * The most requests one `:batchEmbedContents` call may carry (as OpenAI's embeddings input array): beyond it
 * the request is refused before anything is counted or sent. The body's size is bounded by MAX_REQUEST_BODY_MB.
 */
export const MAX_BATCH_EMBED_REQUESTS = 2048;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One EmbedContentRequest: `content.parts` (text or other parts), the optional fields typed as Gemini's. */
function checkEmbedRequest(raw: unknown, at: string): string[] {
  if (!isObject(raw)) throw badRequest(`${at || 'request body'} must be a JSON object`);
  const field = (name: string) => (at ? `${at}.${name}` : name);
  const content = raw.content;
  if (content === undefined || content === null) throw badRequest(`${field('content')} is required`);
  if (!isObject(content)) throw badRequest(`${field('content')} must be an object`);
  if (!Array.isArray(content.parts) || content.parts.length === 0) throw badRequest(`${field('content.parts')} must be a non-empty array`);
  const texts: string[] = [];
  for (const [i, part] of content.parts.entries()) {
    if (!isObject(part)) throw badRequest(`${field(`content.parts[${i}]`)} must be an object`);
    if (part.text === undefined || part.text === null) continue;
    if (typeof part.text !== 'string') throw badRequest(`${field(`content.parts[${i}].text`)} must be a string`);
    if (part.text) texts.push(part.text);
  }
  if (raw.model !== undefined && raw.model !== null && typeof raw.model !== 'string')
    throw badRequest(`${field('model')} must be a string`);
  for (const name of ['taskType', 'title'])
    if (raw[name] !== undefined && raw[name] !== null && typeof raw[name] !== 'string') throw badRequest(`${field(name)} must be a string`);
  const dims = raw.outputDimensionality;
  if (dims !== undefined && dims !== null && (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > 65_536))
    throw badRequest(`${field('outputDimensionality')} must be a positive integer`);
  return texts;
}

/**
 * Gemini `:embedContent` (one EmbedContentRequest) and `:batchEmbedContents` (`requests`, one per text). The
 * model comes from the path. The hub is OpenAI's embeddings request over the texts joined by newlines, which is
 * what new-api counts as the prompt (its GetTokenCountMeta) and bills on.
 */
export function parseGeminiEmbeddings(path: string, raw: unknown, route: RouteFacts): RelayRequest {
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const model = checkModel(route.model);
  let texts: string[];
  if (route.batch) {
    const requests = raw.requests;
    if (requests === undefined || requests === null) throw badRequest('requests is required');
    if (!Array.isArray(requests) || requests.length === 0) throw badRequest('requests must be a non-empty array');
    if (requests.length > MAX_BATCH_EMBED_REQUESTS) throw badRequest(`requests may hold at most ${MAX_BATCH_EMBED_REQUESTS} items`);
    texts = requests.flatMap((request, i) => {
      const own = checkEmbedRequest(request, `requests[${i}]`);
      return own.length ? [own.join('\n')] : [];
    });
  } else {
    texts = checkEmbedRequest(raw, '');
  }
  return {
    kind: 'gemini_embeddings',
    format: 'gemini',
    hub: { model, input: texts.join('\n') },
    endpoint: 'embeddings',
    path,
    body: raw,
    model,
    stream: false,
    includeUsage: false,
    maxTokens: 0,
    batch: route.batch === true,
  };
}
