import { outboundOpen, type OutboundStream } from '@gw/core';
import type { ContentSource } from '../task-provider.js';

/** Redirects followed from the first URL; a CDN hand-off takes one. */
const MAX_REDIRECTS = 3;

/**
 * Opens a finished video's download (threats S2, S5). The channel's credentials (the source's headers) go
 * only to the channel's own origin, its base URL: the operator chose it and the relay calls it anyway, so it
 * may be private (a local provider). Any other host, named by the provider's answer or by a redirect, is a
 * third party: it is called without the credentials and through the outbound guard, so it cannot be a
 * private address unless `allowPrivate` (AllowPrivateOutboundUrls). Redirects are followed here, one hop at a
 * time, each judged the same way; the connection always goes to the address that was checked.
 */
export async function openVideoDownload(
  source: ContentSource,
  channelBaseUrl: string,
  options: { allowPrivate: boolean; timeoutMs: number },
): Promise<OutboundStream> {
  const home = originOf(channelBaseUrl);
  let url = source.url;
  for (let hop = 0; ; hop++) {
    const own = home !== undefined && originOf(url) === home;
    const answer = await outboundOpen(url, {
      allowPrivate: own || options.allowPrivate,
      timeoutMs: options.timeoutMs,
      headers: own ? source.headers : undefined,
    });
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status >= 400 || typeof location !== 'string' || hop === MAX_REDIRECTS) return answer;
    answer.body.on('error', () => undefined).destroy();
    url = new URL(location, url).href;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
