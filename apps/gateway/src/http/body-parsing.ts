import express, { type NextFunction, type Request, type Response } from 'express';
import { bodyErrorAnswer, parseJsonBody, readBoundedBody, verifyJsonDepth } from '@gw/core';

/** JSON in UTF-8 (RFC 8259's only encoding): read by boundedJson; other charsets fall to express.json. */
const UTF8_JSON = /^application\/(?:[\w.+-]+\+)?json\s*(;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;

/**
 * JSON and form bodies up to MAX_REQUEST_BODY_MB. A body that cannot be read gets a 4xx in the
 * caller's own error shape (envelope on /api, OpenAI or Anthropic on the relay), never a 500.
 * Only boundedJson inflates gzip/deflate/br (bounded by the limit and an inflation ratio while it
 * streams); the body-parser fallbacks refuse compressed bodies with a 415.
 */
export function bodyParsers(maxBytes: number) {
  return [
    boundedJson(maxBytes),
    express.json({ limit: maxBytes, type: ['application/json', 'application/*+json'], inflate: false, verify: verifyJsonDepth }),
    express.urlencoded({ limit: maxBytes, extended: false, inflate: false }),
    bodyErrorHandler,
  ];
}

/** UTF-8 JSON, plain or compressed, read with the inflation bounds and the nesting-depth check. */
function boundedJson(maxBytes: number) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const type = req.headers['content-type'];
    if (typeof type !== 'string' || !UTF8_JSON.test(type) || !req.readable) {
      next();
      return;
    }
    readBoundedBody(req, maxBytes)
      .then((bytes) => {
        req.body = parseJsonBody(bytes);
        next();
      })
      .catch(next);
  };
}

function bodyErrorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const answer = bodyErrorAnswer(error, req.path);
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
