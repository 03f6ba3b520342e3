import type { BuiltRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from './types.js';

export interface AdaptorRequest {
  built: BuiltRequest;
  /** The exact bytes to send when they were signed or authorised (else the client serialises `body`). */
  rawBody?: { bytes: Buffer; contentType: string };
}

/** URL, headers and (for signed calls) the body bytes of one adaptor call; the relay and channel tests share it. */
export async function adaptorRequest(adaptor: ChannelAdaptor, call: AdaptorCall, body: Record<string, unknown>): Promise<AdaptorRequest> {
  const built = adaptor.buildChatRequest(call);
  if (!adaptor.authorize) return { built };
  // Signed or token-bearing calls: the bytes signed are the bytes sent.
  const text = JSON.stringify(body);
  return { built: await adaptor.authorize(built, text, call), rawBody: { bytes: Buffer.from(text), contentType: 'application/json' } };
}
