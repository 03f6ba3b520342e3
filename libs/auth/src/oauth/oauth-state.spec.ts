import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { BusinessError } from '@gw/core';
import type { KvStore } from '@gw/user';
import { OAuthStateStore, pkceChallenge } from './oauth-state.js';

/** The three KvStore calls the state store makes, in memory. */
function memoryKv(): KvStore {
  const values = new Map<string, string>();
  return {
    set: async (key: string, value: string) => void values.set(key, value),
    take: async (key: string) => {
      const value = values.get(key);
      values.delete(key);
      return value;
    },
  } as unknown as KvStore;
}

function browser() {
  const cookies: string[] = [];
  const res = { append: (_name: string, value: string) => cookies.push(value) } as unknown as Response;
  const req = (state?: string) =>
    ({ secure: false, headers: { cookie: state ? `session=x; oauth_state=${state}` : 'session=x' } }) as unknown as Request;
  return { res, req, cookies };
}

describe('OAuthStateStore', () => {
  it('issues a state tied to the browser by an HttpOnly cookie, usable once, with its PKCE and nonce secrets', async () => {
    const store = new OAuthStateStore(memoryKv());
    const { res, req, cookies } = browser();
    const state = await store.issue(req(), res, { aff: 'inviter', provider: 'oidc', verifier: 'v'.repeat(43), nonce: 'n' });
    expect(cookies[0]).toMatch(new RegExp(`^oauth_state=${state}; Path=/api/oauth; Max-Age=600; HttpOnly; SameSite=Lax$`));
    expect(await store.consume(req(state), state, 'oidc')).toEqual({
      aff: 'inviter',
      provider: 'oidc',
      verifier: 'v'.repeat(43),
      nonce: 'n',
    });
    await expect(store.consume(req(state), state, 'oidc')).rejects.toThrow('state is empty or invalid');
  });

  it('refuses a missing cookie, a cookie for another state, an empty state and another provider’s state', async () => {
    const store = new OAuthStateStore(memoryKv());
    const { res, req } = browser();
    const state = await store.issue(req(), res, { aff: '', provider: 'acme' });
    for (const [cookie, given, provider] of [
      [undefined, state, 'acme'],
      ['other-state', state, 'acme'],
      [state, '', 'acme'],
      [state, state, 'oidc'],
    ] as const) {
      await expect(store.consume(req(cookie), given, provider)).rejects.toBeInstanceOf(BusinessError);
    }
  });

  it('accepts a state-only start (GET /api/oauth/state) at any provider', async () => {
    const store = new OAuthStateStore(memoryKv());
    const { res, req } = browser();
    const state = await store.issue(req(), res, { aff: '' });
    expect(await store.consume(req(state), state, 'github')).toEqual({ aff: '' });
  });
});

describe('pkceChallenge', () => {
  it('is the unpadded base64url SHA-256 of the verifier (RFC 7636 S256)', () => {
    const verifier = 'a'.repeat(43);
    expect(pkceChallenge(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(pkceChallenge(verifier)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
