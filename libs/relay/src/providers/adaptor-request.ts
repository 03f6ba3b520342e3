import type { BuiltRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from './types.js';

export interface AdaptorRequest {
  built: BuiltRequest;
  /** The exact bytes to send when they were signed or authorised (else the client serialises `body`). */
  rawBody?: { bytes: Buffer; contentType: string };
}

/**
 * URL, headers and (for signed calls) the body bytes of one adaptor call; the relay and channel tests share it.
 * `built` is the request of another route than chat (the provider's embeddings), authorised the same way.
 */
export async function adaptorRequest(
  adaptor: ChannelAdaptor,
  call: AdaptorCall,
  body: Record<string, unknown>,
  built: BuiltRequest = adaptor.buildChatRequest(call),
): Promise<AdaptorRequest> {
  if (!adaptor.authorize) return { built };
  // Signed or token-bearing calls: the bytes signed are the bytes sent.
  const text = JSON.stringify(body);
  return { built: await adaptor.authorize(built, text, call), rawBody: { bytes: Buffer.from(text), contentType: 'application/json' } };
}
