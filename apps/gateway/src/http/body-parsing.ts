import express, { type NextFunction, type Request, type Response } from 'express';
import { bodyErrorAnswer } from '@gw/core';

/**
 * JSON and form bodies up to MAX_REQUEST_BODY_MB. A body that cannot be read gets a 4xx in the
 * caller's own error shape (envelope on /api, OpenAI or Anthropic on the relay), never a 500.
 */
export function bodyParsers(maxBytes: number) {
  return [
    express.json({ limit: maxBytes, type: ['application/json', 'application/*+json'] }),
    express.urlencoded({ limit: maxBytes, extended: false }),
    bodyErrorHandler,
  ];
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
