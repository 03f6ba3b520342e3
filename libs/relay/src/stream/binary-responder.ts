import type { ServerResponse } from 'node:http';
import { channelRedactingTransform, type RelayChannel } from '@gw/channel';
import type { UpstreamResponse } from '@gw/upstream';

/**
 * A binary answer (speech audio) piped to the client as it arrives, with the provider's content type and
 * the channel's keys masked (as in every other answer). Resolves with the bytes received, or the error that
 * cut it; back-pressure through pipe().
 */
export function relayBinary(
  response: UpstreamResponse,
  res: ServerResponse,
  channel: RelayChannel,
): Promise<{ bytes: number; error?: unknown }> {
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
    const redacted = body.pipe(channelRedactingTransform(channel));
    // Over when the bytes held back at the end were flushed too (pipe then ends the response).
    redacted.once('end', () => done());
    redacted.pipe(res);
  });
}
