import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError } from '@gw/core';
import { KvStore, sameSecret } from '@gw/user';

export const STATE_COOKIE = 'oauth_state';
const STATE_TTL_SECONDS = 10 * 60;

/** What a state stands for: who invited, and for a flow the gateway started itself, its provider and secrets. */
export interface OAuthStateRecord {
  aff: string;
  /** Set by `GET /api/oauth/:provider/authorize`: the state is good for this provider only. */
  provider?: string;
  /** PKCE (RFC 7636) verifier; only its S256 challenge left the gateway. */
  verifier?: string;
  /** OIDC nonce the ID token must carry. */
  nonce?: string;
}

export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/**
 * Single-use OAuth states, stored server side and tied to the browser by an HttpOnly cookie, so a
 * callback carrying someone else's state (login CSRF) or a replayed one is refused.
 */
@Injectable()
export class OAuthStateStore {
  constructor(private readonly kv: KvStore) {}

  async issue(req: Request, res: Response, record: OAuthStateRecord): Promise<string> {
    const state = randomBytes(18).toString('base64url');
    await this.kv.set(`oauth:state:${state}`, JSON.stringify({ ...record, aff: record.aff.slice(0, 32) }), STATE_TTL_SECONDS);
    const secure = req.secure ? '; Secure' : '';
    res.append('Set-Cookie', `${STATE_COOKIE}=${state}; Path=/api/oauth; Max-Age=${STATE_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`);
    return state;
  }

  /** Takes the state once; a state bound to another provider is refused like an unknown one. */
  async consume(req: Request, state: string, provider: string): Promise<OAuthStateRecord> {
    const invalid = new BusinessError('state is empty or invalid');
    const cookie = readCookie(req.headers.cookie, STATE_COOKIE);
    if (!state || !cookie || !sameSecret(cookie, state)) throw invalid;
    const stored = await this.kv.take(`oauth:state:${state}`);
    if (!stored) throw invalid;
    let record: OAuthStateRecord;
    try {
      record = JSON.parse(stored) as OAuthStateRecord;
    } catch {
      return { aff: '' };
    }
    if (record.provider && record.provider !== provider) throw invalid;
    return record;
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
