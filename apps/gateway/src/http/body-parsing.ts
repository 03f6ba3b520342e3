import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { bodyErrorAnswer, parseJsonBody, readBoundedBody, requestIdHeaderOf, verifyJsonDepth } from '@gw/core';

/** JSON in UTF-8 (RFC 8259's only encoding): read by boundedJson; other charsets fall to express.json. */
const UTF8_JSON = /^application\/(?:[\w.+-]+\+)?json\s*(;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;

/**
 * Routes anyone may call without a login (login, 2FA and passkey login, register, password reset, setup,
 * OAuth, payment callbacks) take small bodies only: their real bodies are a few hundred bytes, and a
 * stranger must not make the gateway read MAX_REQUEST_BODY_MB before anyone knows who they are.
 */
export const UNAUTHENTICATED_BODY_BYTES = 64 * 1024;
const UNAUTHENTICATED_ROUTES =
  /^\/api\/(?:user\/(?:login|register|reset|passkey\/login|epay\/notify)|setup|oauth|reset_password|verification)(?:\/|$)/i;

export function bodyLimitFor(path: string, maxBytes: number): number {
  return isUnauthenticatedRoute(path) ? Math.min(maxBytes, UNAUTHENTICATED_BODY_BYTES) : maxBytes;
}

function isUnauthenticatedRoute(path: string): boolean {
  return UNAUTHENTICATED_ROUTES.test(path);
}

/**
 * JSON and form bodies up to MAX_REQUEST_BODY_MB (UNAUTHENTICATED_BODY_BYTES on the routes above). A body that cannot be read gets a 4xx in the
 * caller's own error shape (envelope on /api, OpenAI or Anthropic on the relay), never a 500.
 * Only boundedJson inflates gzip/deflate/br (bounded by the limit and an inflation ratio while it
 * streams); the body-parser fallbacks refuse compressed bodies with a 415.
 */
export function bodyParsers(maxBytes: number) {
  return [
    boundedJson(maxBytes),
    ...byLimit(fallbackParsers(maxBytes), fallbackParsers(Math.min(maxBytes, UNAUTHENTICATED_BODY_BYTES))),
    bodyErrorHandler,
  ];
}

function fallbackParsers(limit: number) {
  return [
    express.json({ limit, type: ['application/json', 'application/*+json'], inflate: false, verify: verifyJsonDepth }),
    express.urlencoded({ limit, extended: false, inflate: false }),
  ];
}

/** Each fallback parser in two sizes: the small one on the unauthenticated routes. */
function byLimit(normal: RequestHandler[], small: RequestHandler[]): RequestHandler[] {
  return normal.map((parser, i) => (req: Request, res: Response, next: NextFunction) => {
    const chosen = isUnauthenticatedRoute(req.path) ? small[i]! : parser;
    chosen(req, res, next);
  });
}

/** UTF-8 JSON, plain or compressed, read with the inflation bounds and the nesting-depth check. */
function boundedJson(maxBytes: number) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const type = req.headers['content-type'];
    if (typeof type !== 'string' || !UTF8_JSON.test(type) || !req.readable) {
      next();
      return;
    }
    readBoundedBody(req, bodyLimitFor(req.path, maxBytes))
      .then((bytes) => {
        req.body = parseJsonBody(bytes);
        next();
      })
      .catch(next);
  };
}

function bodyErrorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const answer = bodyErrorAnswer(error, req.path, requestIdHeaderOf(res));
  if (answer) res.status(answer.status).json(answer.body);
  else next(error);
}

/** Console answers are personal: no cache, anywhere (new-api's frontend sends the same directive). */
export function noStoreOnApi(req: Request, res: Response, next: NextFunction): void {
  if (req.path.startsWith('/api')) res.setHeader('Cache-Control', 'no-store');
  // Browsers must never sniff a JSON answer or an uploaded text into HTML or script.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
