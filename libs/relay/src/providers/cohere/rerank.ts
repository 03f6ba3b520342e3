import { buildProviderRequest } from '@gw/upstream';
import type { Json, ProviderEndpoint } from '../types.js';
import { cohereUsage } from './codec.js';

/**
 * Cohere Rerank (POST {base}/v1/rerank): the client's rerank body (new-api's / Jina's shape) keeps its fields under
 * Cohere's names; the answer's results pass through, and its usage is the billed input tokens when Cohere reports
 * them (it usually bills search units only, and the prompt estimate is charged, as in new-api).
 */
export const cohereRerank: ProviderEndpoint = {
  build: (call) =>
    buildProviderRequest(call.channel.upstream, '/v1/rerank', { authorization: `Bearer ${call.channel.upstream.key}` }, false),
  body(request, model) {
    const body: Record<string, unknown> = { model, query: request.query, documents: request.documents };
    if (typeof request.top_n === 'number' && request.top_n > 0) body.top_n = request.top_n;
    if (typeof request.return_documents === 'boolean') body.return_documents = request.return_documents;
    if (typeof request.max_chunks_per_doc === 'number') body.max_chunks_per_doc = request.max_chunks_per_doc;
    return body;
  },
  answer(native: Json) {
    if (!Array.isArray(native.results)) throw new Error('the Cohere rerank answer has no results');
    return { response: { id: native.id, results: native.results }, usage: cohereUsage(native.meta) };
  },
};
