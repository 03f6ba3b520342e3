import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a browser may cache a preflight answer (new-api's CORS middleware: 12 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 43_200;
const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * new-api answers cross-origin calls on its token-authenticated relay routes for any origin, so browser
 * chat apps can call /v1 directly with a key. The playground (/pg) is excluded: it authenticates with
 * the console session cookie, and a cross-origin page must never get to use that. No credentials are
 * allowed: a key travels in a header, never in a cookie. Returns true when it answered a preflight.
 */
export function applyRelayCors(path: string, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.origin === undefined || path.startsWith('/pg/')) return false;
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
  const requested = req.headers['access-control-request-headers'];
  res.writeHead(204, {
    'Access-Control-Allow-Methods': METHODS,
    'Access-Control-Allow-Headers': typeof requested === 'string' && requested ? requested : '*',
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    Vary: 'Origin, Access-Control-Request-Headers',
  });
  res.end();
  return true;
}
