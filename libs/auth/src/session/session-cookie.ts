import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** A fresh random session id and its signed cookie value `<id>.<hmac>`. */
export function newSessionToken(secret: string): { token: string; cookie: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, cookie: `${token}.${sign(token, secret)}` };
}

/** Returns the session id when the cookie's signature is valid. */
export function readSessionToken(req: Request, secret: string): string | undefined {
  const value = readCookie(req.headers.cookie, SESSION_COOKIE);
  if (!value) return undefined;
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const token = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(token, secret));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return token;
}

/** The database key of a session: its id is never stored in clear. */
export function sessionKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function setSessionCookie(req: Request, res: Response, cookie: string): void {
  res.append('Set-Cookie', serialize(req, `${SESSION_COOKIE}=${cookie}`, SESSION_MAX_AGE_SECONDS));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', serialize(req, `${SESSION_COOKIE}=`, 0));
}

function serialize(req: Request, pair: string, maxAge: number): string {
  const secure = req.secure ? '; Secure' : '';
  return `${pair}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
}

function sign(token: string, secret: string): string {
  return createHmac('sha256', secret).update(token).digest('base64url');
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
