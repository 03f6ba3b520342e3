import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';
import { BusinessError } from '../errors/app-error.js';
import { requireOnFirstUse } from '../modules/on-first-use.js';

/** Loaded by the first outbound call (a webhook, an OAuth provider): most processes never make one. */
const undici = requireOnFirstUse<typeof import('undici')>('undici');

/**
 * Outbound HTTP for user- or admin-supplied URLs (webhooks, OIDC discovery, WeChat server, OAuth
 * providers). Refuses private, loopback, link-local, CGNAT, unspecified and other special-purpose
 * addresses (threats S3–S6) unless `allowPrivate` is set; every DNS answer is checked and the
 * connection is pinned to the checked address (no rebinding); no redirects; a timeout and a body cap.
 */
export const OUTBOUND_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_BYTES = 1024 * 1024;

export class OutboundUrlError extends BusinessError {
  constructor(message: string) {
    super(message, 'outbound_blocked');
  }
}

/**
 * The IPv4 addresses an IPv6 address carries, for the forms that deliver to them: IPv4-mapped
 * (::ffff:a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48),
 * 6to4 (2002:AABB:CCDD::/16) and Teredo (2001:0::/32: its server, and its client with the bits
 * inverted). Undefined for any other IPv6 address.
 */
export function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = v6.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zero = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zero(0, 5) && p[5] === 0xffff) return [v4(p[6]!, p[7]!)];
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x64 && p[1] === 0xff9b && (zero(2, 6) || p[2] === 1)) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
  return undefined;
}

/**
 * True when `address` (an IPv4 or IPv6 literal, in any form ipaddr.js reads: dotted, decimal, octal,
 * hex, short) is anything but a public unicast address. IPv6 forms that carry an IPv4 address are
 * judged by that address (threats S3: `[::ffff:127.0.0.1]`, `[64:ff9b::7f00:1]`, `[2002:7f00:1::]`
 * all reach loopback), so a NAT64 or 6to4 route to a public host still works.
 */
export function isBlockedAddress(address: string): boolean {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (!ipaddr.isValid(text)) return true;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  // IPv4-compatible addresses (::/96, deprecated by RFC 4291) such as `[::127.0.0.1]`: URL parsing turns them
  // into `::7f00:1`, which ipaddr.js ranks as plain unicast, yet stacks may still route them to the embedded IPv4.
  if (v6.parts.slice(0, 6).every((part) => part === 0)) return true;
  const carried = embeddedIPv4(v6);
  if (carried) return carried.some((v4) => v4.range() !== 'unicast');
  return v6.range() !== 'unicast';
}

/** Is `host` (as a URL hostname) an IP literal? Returns the literal without brackets. */
function ipLiteral(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) ? bare : undefined;
}

export interface OutboundCheckOptions {
  allowPrivate?: boolean;
  /** Only https (webhooks). */
  httpsOnly?: boolean;
}

/** Parses and checks a URL's form (scheme, credentials, host); does not resolve names. */
export function parseOutboundUrl(raw: string, options: OutboundCheckOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError('invalid URL');
  }
  if (options.httpsOnly ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundUrlError(options.httpsOnly ? 'URL must start with https://' : 'URL must start with http:// or https://');
  }
  if (url.username || url.password) throw new OutboundUrlError('URL must not contain credentials');
  if (!url.hostname) throw new OutboundUrlError('invalid URL');
  if (!options.allowPrivate) {
    const literal = ipLiteral(url.hostname);
    if (literal && isBlockedAddress(literal)) throw new OutboundUrlError('URL points to a private or reserved address');
  }
  return url;
}

/** Resolves the URL's host and checks every address; returns the addresses to connect to. */
export async function resolveOutbound(url: URL, allowPrivate = false): Promise<LookupAddress[]> {
  const literal = ipLiteral(url.hostname);
  if (literal) {
    if (!allowPrivate && isBlockedAddress(literal)) throw new OutboundUrlError('URL points to a private or reserved address');
    return [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  }
  let addresses: LookupAddress[];
  let timer: NodeJS.Timeout | undefined;
  try {
    // A slow resolver must not hold the caller past the request timeout.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), OUTBOUND_TIMEOUT_MS);
    });
    addresses = await Promise.race([dnsLookup(url.hostname, { all: true, verbatim: true }), timeout]);
  } catch {
    throw new OutboundUrlError('URL host cannot be resolved');
  } finally {
    clearTimeout(timer);
  }
  if (!addresses.length) throw new OutboundUrlError('URL host cannot be resolved');
  if (!allowPrivate && addresses.some((a) => isBlockedAddress(a.address))) {
    throw new OutboundUrlError('URL points to a private or reserved address');
  }
  return addresses;
}

/** Checks form and resolution (e.g. when a URL is saved). */
export async function assertOutboundUrl(raw: string, options: OutboundCheckOptions = {}): Promise<URL> {
  const url = parseOutboundUrl(raw, options);
  await resolveOutbound(url, options.allowPrivate);
  return url;
}

export interface OutboundRequest extends OutboundCheckOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = unknown>(): T;
}

/** A dispatcher whose every connection goes to `pinned`, the address that was checked. */
function pinnedAgent(pinned: LookupAddress, timeout: number): Agent {
  return new (undici().Agent)({
    connect: {
      timeout,
      // The name is resolved once, before this, and the socket goes to that address: no rebinding window.
      lookup: (_host: string, opts: { all?: boolean }, cb: (...args: any[]) => void) => {
        if (opts?.all) cb(null, [{ address: pinned.address, family: pinned.family }]);
        else cb(null, pinned.address, pinned.family);
      },
    } as any,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
}

export interface OutboundStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, unread: the caller streams it on (and must consume or destroy it). */
  body: Readable;
}

/**
 * Opens one GET to a checked, pinned address and returns before reading the body, for downloads that are
 * streamed on to a client (a Midjourney image). 3xx answers are returned, never followed.
 */
export async function outboundOpen(
  raw: string,
  options: OutboundCheckOptions & { timeoutMs: number; headers?: Record<string, string> },
): Promise<OutboundStream> {
  const url = parseOutboundUrl(raw, options);
  const addresses = await resolveOutbound(url, options.allowPrivate);
  const agent = pinnedAgent(addresses[0]!, options.timeoutMs);
  try {
    const res = await undici().request(url, {
      method: 'GET',
      headers: options.headers,
      dispatcher: agent,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (error) {
    throw new OutboundUrlError(`request failed: ${(error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message}`);
  } finally {
    // Closing waits for the open request, so the agent goes away once the body has been read.
    void agent.close().catch(() => undefined);
  }
}

/** Sends one request to a checked, pinned address; 3xx answers are returned, never followed. */
export async function outboundFetch(raw: string, options: OutboundRequest = {}): Promise<OutboundResponse> {
  const url = parseOutboundUrl(raw, options);
  const addresses = await resolveOutbound(url, options.allowPrivate);
  const timeout = Math.min(options.timeoutMs ?? OUTBOUND_TIMEOUT_MS, OUTBOUND_TIMEOUT_MS);
  const maxBytes = options.maxBytes ?? OUTBOUND_MAX_BYTES;
  const agent = pinnedAgent(addresses[0]!, timeout);
  try {
    const res = await undici().request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeout),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new OutboundUrlError('response body too large');
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      json<T>() {
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new OutboundUrlError('response is not valid JSON');
        }
      },
    };
  } catch (error) {
    if (error instanceof OutboundUrlError) throw error;
    throw new OutboundUrlError(`request failed: ${(error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message}`);
  } finally {
    void agent.close().catch(() => undefined);
  }
}
