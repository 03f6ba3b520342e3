import { Transform } from 'node:stream';
import type { UpstreamResponse } from '@gw/upstream';

/**
 * Ollama streams newline-delimited JSON, not server-sent events: each line becomes one `data:` event so the
 * relay's stream reader (and its byte-level back-pressure) serves it like any other provider.
 */
export function ndjsonAsSse(response: UpstreamResponse): UpstreamResponse {
  let tail = '';
  const toEvents = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => `data: ${line}\n\n`)
      .join('');
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = tail + chunk.toString('utf8');
      const cut = text.lastIndexOf('\n');
      tail = cut < 0 ? text : text.slice(cut + 1);
      done(null, cut < 0 ? '' : toEvents(text.slice(0, cut)));
    },
    flush(done) {
      done(null, toEvents(tail));
    },
  });
  response.body.on('error', (error) => body.destroy(error));
  response.body.pipe(body);
  // Built field by field: spreading the response would read its body getter again.
  return {
    status: response.status,
    url: response.url,
    headers: { ...response.headers, 'content-type': 'text/event-stream' },
    body,
    text: () => Promise.reject(new Error('the upstream body is being streamed')),
    json: () => Promise.reject(new Error('the upstream body is being streamed')),
  };
}
