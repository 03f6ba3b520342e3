import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { UserHooks, UserService, type UserEntity } from '@gw/user';
import {
  clearSessionCookie,
  newSessionToken,
  readSessionToken,
  SESSION_MAX_AGE_SECONDS,
  sessionKey,
  setSessionCookie,
} from './session-cookie.js';
import { SessionRepository } from './session.repository.js';

export interface Identity {
  user: UserEntity;
  /** Set when authenticated by the session cookie, absent with an access token. */
  sessionId?: string;
}

/** Logs users in and out, and tells who a console request comes from (cookie first, then access token). */
@Injectable()
export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly users: UserService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    hooks: UserHooks,
  ) {
    // The user module ends sessions (ban, delete, password change, reset) through this hook.
    hooks.onRevokeSessions((userId, exceptSessionId) => this.endAllFor(userId, exceptSessionId));
  }

  /** Starts a new session (a new id on every login) and ends the one the browser had, if any. */
  async start(req: Request, res: Response, user: UserEntity): Promise<void> {
    const previous = readSessionToken(req, this.config.session.secret);
    if (previous) await this.sessions.delete(sessionKey(previous));
    const { token, cookie } = newSessionToken(this.config.session.secret);
    const now = nowSeconds();
    await this.sessions.insert({
      id: sessionKey(token),
      userId: user.id,
      createdAt: now,
      expiresAt: now + SESSION_MAX_AGE_SECONDS,
      ip: req.ip ?? null,
    });
    setSessionCookie(req, res, cookie);
  }

  async end(req: Request, res: Response): Promise<void> {
    const token = readSessionToken(req, this.config.session.secret);
    if (token) await this.sessions.delete(sessionKey(token));
    clearSessionCookie(req, res);
  }

  async identify(req: Request): Promise<Identity | undefined> {
    const token = readSessionToken(req, this.config.session.secret);
    if (token) {
      const session = await this.sessions.findById(sessionKey(token));
      if (session && session.expiresAt > nowSeconds()) {
        const user = await this.users.findById(session.userId);
        if (user) return { user, sessionId: session.id };
      }
    }
    const accessToken = readAccessToken(req);
    if (accessToken) {
      const user = await this.users.findByAccessToken(accessToken);
      if (user) return { user };
    }
    return undefined;
  }

  /** Ends every session of a user (ban, delete), or all but one (password change). */
  async endAllFor(userId: number, exceptSessionId?: string): Promise<void> {
    await this.sessions.deleteForUser(userId, exceptSessionId);
  }

  async purgeExpired(): Promise<void> {
    await this.sessions.deleteExpired(nowSeconds());
  }
}

function readAccessToken(req: Request): string | undefined {
  const header = req.headers.authorization?.trim();
  if (!header) return undefined;
  const token = header.replace(/^bearer\s+/i, '').trim();
  // Relay keys (sk-...) are not console access tokens.
  return token && !token.startsWith('sk-') && token.length <= 64 ? token : undefined;
}
