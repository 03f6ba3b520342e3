import { outboundOpen, OutboundUrlError, type OutboundStream } from '@gw/core';
import { addressRefused } from '@gw/upstream';
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
 *
 * A base URL checked public when it was saved stays public here too (`ownPublicOnly`: UpstreamClient.holdsPublic,
 * threats S5 with DNS rebinding): its own origin is then checked as a third party's is, and a refusal is the
 * provider's connect failure (addressRefused: no address in it), as the relay and the task calls report it.
 */
export async function openVideoDownload(
  source: ContentSource,
  channelBaseUrl: string,
  options: { allowPrivate: boolean; ownPublicOnly?: boolean; timeoutMs: number },
): Promise<OutboundStream> {
  const home = originOf(channelBaseUrl);
  let url = source.url;
  for (let hop = 0; ; hop++) {
    const own = home !== undefined && originOf(url) === home;
    const checked = own && options.ownPublicOnly === true;
    let answer: OutboundStream;
    try {
      answer = await outboundOpen(url, {
        allowPrivate: (own && !checked) || options.allowPrivate,
        timeoutMs: options.timeoutMs,
        headers: own ? source.headers : undefined,
      });
    } catch (error) {
      if (checked && error instanceof OutboundUrlError && !error.message.startsWith('request failed')) throw addressRefused();
      throw error;
    }
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
