import { buildProviderRequest, type CancelSignal, type UpstreamTarget, UpstreamError } from '@gw/upstream';
import type { AdaptorHttp } from '../types.js';

/** new-api renews a token an hour before it expires (Baidu's last 30 days). */
const RENEW_BEFORE_MS = 3600 * 1000;
const MAX_CACHED = 1000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

const tokens = new Map<string, CachedToken>();
const pending = new Map<string, Promise<CachedToken>>();

/** Forgets every cached token (tests). */
export function clearBaiduTokens(): void {
  tokens.clear();
}

/**
 * Baidu's OAuth access token for an `APIKey|SecretKey` channel key: POST {origin}/oauth/2.0/token with
 * grant_type=client_credentials (Baidu AI Cloud "get access token"), cached until shortly before it expires
 * and fetched once however many requests wait for it. The channel's origin is used (the default base URL
 * is Baidu's own), so the secret goes nowhere the key would not.
 */
export async function baiduAccessToken(
  target: UpstreamTarget,
  http: AdaptorHttp,
  signal?: CancelSignal,
  now = Date.now(),
): Promise<string> {
  const [clientId, clientSecret, ...extra] = target.key.split('|').map((part) => part.trim());
  if (!clientId || !clientSecret || extra.length) throw new UpstreamError('unsupported', 'invalid Baidu key: expected APIKey|SecretKey');
  const cacheKey = `${target.baseUrl}\n${target.key}`;
  const cached = tokens.get(cacheKey);
  if (cached && cached.expiresAt - RENEW_BEFORE_MS > now) return cached.token;
  let fetching = pending.get(cacheKey);
  if (!fetching) {
    fetching = fetchToken(target, clientId, clientSecret, http, signal).finally(() => pending.delete(cacheKey));
    pending.set(cacheKey, fetching);
  }
  const fresh = await fetching;
  if (tokens.size >= MAX_CACHED) tokens.clear();
  tokens.set(cacheKey, fresh);
  return fresh.token;
}

async function fetchToken(
  target: UpstreamTarget,
  clientId: string,
  clientSecret: string,
  http: AdaptorHttp,
  signal?: CancelSignal,
): Promise<CachedToken> {
  const query = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const built = buildProviderRequest({ ...target, headerOverride: null }, `/oauth/2.0/token?${query}`, {}, false);
  let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
  try {
    const response = await http.sendBuilt(built, { signal });
    answer = (await response.json()) as typeof answer;
  } catch (error) {
    if (error instanceof UpstreamError && (error.kind === 'aborted' || error.kind === 'timeout')) throw error;
    throw new UpstreamError('bad_response', 'Baidu access token request failed');
  }
  if (typeof answer?.access_token !== 'string' || !answer.access_token) {
    const reason = typeof answer?.error === 'string' ? `${answer.error}: ${String(answer.error_description ?? '')}` : 'no access_token';
    throw new UpstreamError('bad_response', `Baidu access token refused (${reason})`);
  }
  const seconds = Number(answer.expires_in);
  return { token: answer.access_token, expiresAt: Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000 };
}
