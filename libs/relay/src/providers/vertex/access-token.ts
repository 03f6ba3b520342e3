import { createHash, createSign } from 'node:crypto';
import { outboundFetch, type OutboundResponse } from '@gw/core';
import { AdaptorAuthError } from '../types.js';

/** The service-account fields a token needs (Google's JSON key file). */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  /** Where the signed JWT is exchanged (the key file's token_uri). */
  tokenUri: string;
}

const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before it expires, so a call never carries one that lapses in flight. */
const RENEW_EARLY_MS = 5 * 60_000;

/** Reads a channel key holding a service-account JSON key file. */
export function parseServiceAccount(key: string): ServiceAccount {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(key) as Record<string, unknown>;
  } catch {
    throw new AdaptorAuthError('the Vertex AI key must be a service-account JSON key file');
  }
  const text = (name: string) => (typeof json?.[name] === 'string' ? (json[name] as string).trim() : '');
  const account: ServiceAccount = {
    projectId: text('project_id'),
    clientEmail: text('client_email'),
    privateKey: text('private_key').replaceAll('\\n', '\n'),
    privateKeyId: text('private_key_id') || undefined,
    tokenUri: text('token_uri') || DEFAULT_TOKEN_URI,
  };
  if (!account.projectId || !account.clientEmail || !account.privateKey)
    throw new AdaptorAuthError('the Vertex AI service-account key lacks project_id, client_email or private_key');
  if (!/^https?:\/\//.test(account.tokenUri)) throw new AdaptorAuthError('the service-account token_uri is not an http(s) URL');
  return account;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The RS256-signed assertion of the OAuth 2.0 JWT bearer grant (RFC 7523), as Google's token endpoint expects it. */
export function signedAssertion(account: ServiceAccount, nowSeconds: number): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) };
  const claims = { iss: account.clientEmail, scope: SCOPE, aud: account.tokenUri, iat: nowSeconds, exp: nowSeconds + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(unsigned).sign(account.privateKey);
  } catch {
    throw new AdaptorAuthError('the service-account private_key is not a usable RSA key');
  }
  return `${unsigned}.${base64url(signature)}`;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * Access tokens per service account, kept until shortly before they expire; concurrent calls share one
 * exchange. In memory per process: each instance exchanges its own (tokens are cheap, and never stored).
 */
export class AccessTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `allowPrivate`: AllowPrivateOutboundUrls, the only way a token_uri on a private address is called. */
  async get(account: ServiceAccount, allowPrivate = false): Promise<string> {
    const id = createHash('sha256').update(`${account.tokenUri}\n${account.clientEmail}\n${account.privateKey}`).digest('hex');
    const cached = this.tokens.get(id);
    if (cached && cached.expiresAt - RENEW_EARLY_MS > this.now()) return cached.token;
    let exchange = this.pending.get(id);
    if (!exchange) {
      exchange = this.exchange(account, allowPrivate).finally(() => this.pending.delete(id));
      this.pending.set(id, exchange);
    }
    const fresh = await exchange;
    this.tokens.set(id, fresh);
    return fresh.token;
  }

  /**
   * Threats S5: the token_uri comes from a key file an admin pasted, so it goes through the outbound rules
   * of every admin-supplied URL (a private or reserved address refused unless allowed, the checked address
   * pinned, a redirect answered but never followed, bounded time and size). Checked here, at each exchange,
   * and not only when the channel is saved: a key stored before that check, or under the option since
   * turned off, is refused all the same.
   */
  private async exchange(account: ServiceAccount, allowPrivate: boolean): Promise<CachedToken> {
    const assertion = signedAssertion(account, Math.floor(this.now() / 1000));
    let res: OutboundResponse;
    try {
      res = await outboundFetch(account.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
        allowPrivate,
      });
    } catch (error) {
      throw new AdaptorAuthError(`the Google token exchange failed: token_uri ${(error as Error).message}`);
    }
    const body = (parseJson(res.text) ?? {}) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    if (res.status !== 200 || typeof body.access_token !== 'string' || !body.access_token) {
      const reason =
        typeof body.error_description === 'string'
          ? body.error_description
          : typeof body.error === 'string'
            ? body.error
            : `status ${res.status}`;
      throw new AdaptorAuthError(`the Google token exchange failed: ${reason}`);
    }
    const seconds = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
    return { token: body.access_token, expiresAt: this.now() + seconds * 1000 };
  }
}
