import type { Request } from 'express';
import { BusinessError } from '@gw/core';
import type { OptionService } from '@gw/option';

export interface RelyingParty {
  rpID: string;
  rpName: string;
  origins: string[];
}

const isLocal = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * Who the passkeys belong to, as new-api fills the blanks: the RP id from `passkey.rp_id`, else the
 * host of ServerAddress, else the request's host; the accepted origins from `passkey.origins`, else
 * ServerAddress's origin, else the request's. Plain-http origins (other than localhost) only when the
 * admin allows insecure origins.
 */
export function relyingParty(options: OptionService, req: Request): RelyingParty {
  const server = parseUrl(options.get('ServerAddress'));
  const requestOrigin = `${req.protocol}://${req.get('host') ?? ''}`;
  const configured = options
    .get('passkey.origins')
    .split(/[\s,]+/)
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  const origins = configured.length ? configured : [server?.origin ?? requestOrigin];
  const rpID = options.get('passkey.rp_id').trim() || server?.hostname || req.hostname;
  const allowInsecure = options.get('passkey.allow_insecure_origin');
  const accepted = origins.filter((origin) => {
    const url = parseUrl(origin);
    if (!url) return false;
    return url.protocol === 'https:' || isLocal(url.hostname) || allowInsecure;
  });
  if (!accepted.length) throw new BusinessError('passkeys need an https origin (or allow insecure origins in the passkey settings)');
  const rpName = options.get('passkey.rp_display_name').trim() || options.get('SystemName') || 'AI Gateway';
  return { rpID, rpName, origins: accepted };
}

function parseUrl(value: string): URL | undefined {
  if (!value) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
