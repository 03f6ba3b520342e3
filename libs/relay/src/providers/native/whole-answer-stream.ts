import { Readable } from 'node:stream';
import type { UpstreamResponse } from '@gw/upstream';

/**
 * For providers without a streaming API (PaLM): a stream request is sent as a plain call and its one JSON
 * answer becomes a single server-sent event, which the provider's stream decoder reads like any other.
 */
export async function wholeAnswerAsSse(response: UpstreamResponse): Promise<UpstreamResponse> {
  const type = String(response.headers['content-type'] ?? '');
  if (response.status !== 200 || !type.includes('json')) return response;
  const text = await response.text();
  const event = `data: ${text.replace(/\r?\n/g, '')}\n\n`;
  // Built field by field: spreading the response would open its body (a getter) a second time.
  return {
    status: response.status,
    url: response.url,
    headers: { ...response.headers, 'content-type': 'text/event-stream' },
    body: Readable.from([Buffer.from(event)]),
    text: async () => event,
    json: async <T>() => JSON.parse(text) as T,
  };
}
