import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER } from '@gw/core';

const pool = { bytes: Buffer.alloc(0), offset: 0 };
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The time part changes once per millisecond; under load many requests share it. */
const clock = { ms: -1, text: '' };

function timePart(now: Date): string {
  const ms = now.getTime();
  if (ms !== clock.ms) {
    clock.ms = ms;
    clock.text = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
  }
  return clock.text;
}

/** new-api's request id: a UTC time string (to the millisecond) and 8 random alphanumerics. */
export function newRequestId(now = new Date()): string {
  if (pool.offset + 8 > pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.offset = 0;
  }
  let suffix = '';
  for (let i = 0; i < 8; i++) suffix += ALPHABET[pool.bytes[pool.offset++]! % ALPHABET.length];
  return timePart(now) + suffix;
}

type WithRequestId = IncomingMessage & { relayRequestId?: string };

/** The request's id, created (and put on the response header) on first use. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const tagged = req as WithRequestId;
  if (!tagged.relayRequestId) {
    tagged.relayRequestId = newRequestId();
    if (!res.headersSent) res.setHeader(REQUEST_ID_HEADER, tagged.relayRequestId);
  }
  return tagged.relayRequestId;
}
