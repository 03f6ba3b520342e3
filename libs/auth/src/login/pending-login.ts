import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { KvStore } from '@gw/user';
import { newSessionToken, readSessionToken, sessionKey, setSessionCookie } from '../session/session-cookie.js';

const PENDING_TTL_SECONDS = 5 * 60;
const key = (token: string) => `login:pending:${sessionKey(token)}`;

/**
 * The half-done login between the password (or passkey-less first factor) and the second factor,
 * as new-api's `pending_user_id` session key. It rides in the same `session` cookie, but names no
 * session row, so it authenticates nothing until `/api/user/login/2fa` succeeds. Single use, 5 minutes.
 */
@Injectable()
export class PendingLogins {
  constructor(
    private readonly kv: KvStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(req: Request, res: Response, userId: number): Promise<void> {
    const { token, cookie } = newSessionToken(this.config.session.secret);
    await this.kv.set(key(token), String(userId), PENDING_TTL_SECONDS);
    setSessionCookie(req, res, cookie);
  }

  /** The user id waiting for its second factor, if any (not consumed). */
  async peek(req: Request): Promise<number | undefined> {
    const token = readSessionToken(req, this.config.session.secret);
    if (!token) return undefined;
    const value = await this.kv.get(key(token));
    return value ? Number(value) : undefined;
  }

  /** Ends the pending login; false when another request finished it first. */
  async finish(req: Request): Promise<boolean> {
    const token = readSessionToken(req, this.config.session.secret);
    return token ? (await this.kv.take(key(token))) !== undefined : false;
  }
}
