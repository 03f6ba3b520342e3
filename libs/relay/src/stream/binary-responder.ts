import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '@gw/upstream';

/**
 * A binary answer (speech audio) piped to the client as it arrives, with the provider's content type.
 * Resolves with the bytes sent, or the error that cut it; back-pressure through pipe().
 */
export function relayBinary(response: UpstreamResponse, res: ServerResponse): Promise<{ bytes: number; error?: unknown }> {
  return new Promise((resolve) => {
    const type = response.headers['content-type'];
    res.writeHead(200, { 'Content-Type': typeof type === 'string' ? type : 'application/octet-stream' });
    const body = response.body;
    let bytes = 0;
    let settled = false;
    const done = (error?: unknown) => {
      if (settled) return;
      settled = true;
      resolve({ bytes, error });
    };
    body.on('data', (chunk: Buffer) => (bytes += chunk.length));
    body.once('end', () => done());
    body.once('error', (error) => {
      res.destroy();
      done(error);
    });
    res.once('close', () => {
      if (!res.writableFinished) {
        body.destroy();
        done(new Error('client aborted'));
      }
    });
    body.pipe(res);
  });
}
