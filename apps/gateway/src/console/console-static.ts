import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response } from 'express';
import { isApiPath, isRelayPath, type NotFoundFallback } from '@gw/core';

export const REMOTE_NAMES = ['admin', 'user', 'playground'] as const;

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>AI Gateway</title></head>
<body style="font-family:system-ui;margin:4rem auto;max-width:40rem">
<h1>AI Gateway is running</h1>
<p>The web console has not been built yet. Run <code>npm run build</code>, then restart the gateway.</p>
<p>The API answers at <a href="/api/status">/api/status</a>.</p></body></html>`;

/**
 * Serves the built console: the shell at `/`, each remote under `/remotes/<name>/`. Hashed assets are
 * cached for a year; index.html and manifests are not cached, so a redeploy is picked up at once.
 */
export function consoleStaticMiddlewares(frontendsDir: string) {
  const middlewares = [];
  for (const name of REMOTE_NAMES) {
    const dist = join(frontendsDir, name, 'dist');
    middlewares.push({ path: `/remotes/${name}`, handler: express.static(dist, staticOptions()) });
  }
  middlewares.push({ path: '/', handler: express.static(join(frontendsDir, 'shell', 'dist'), { ...staticOptions(), index: false }) });
  return middlewares;
}

/**
 * The console page's Content-Security-Policy. Scripts only from this origin, the origins remotes are
 * deployed on, and the two login widgets (Turnstile, Telegram); no plugins; no framing of the console by
 * other sites (clickjacking). Styles allow inline ones because Semi positions popups with style attributes.
 * Frames stay open: the home page and the chat page embed operator-chosen URLs.
 */
export function consoleCsp(remoteUrls: string[]): string {
  const remoteOrigins = [...new Set(remoteUrls.filter((url) => /^https?:\/\//.test(url)).map((url) => new URL(url).origin))];
  const scripts = ["'self'", ...remoteOrigins, 'https://challenges.cloudflare.com', 'https://telegram.org'].join(' ');
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    `connect-src 'self' ${remoteOrigins.join(' ')}`.trim(),
    // A remote's pages bring their own stylesheets, fetched from wherever the remote is deployed.
    `style-src 'self' 'unsafe-inline' ${remoteOrigins.join(' ')}`.trim(),
    "img-src 'self' data: blob: https: http:",
    `font-src 'self' data: ${remoteOrigins.join(' ')}`.trim(),
    'frame-src *',
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self' https: http:",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** Unknown GETs outside the API are console routes: answer with the shell's index.html. */
export function spaFallback(frontendsDir: string, remoteUrls: string[] = []): NotFoundFallback {
  const indexFile = join(frontendsDir, 'shell', 'dist', 'index.html');
  const csp = consoleCsp(remoteUrls);
  return (req: Request, res: Response) => {
    if (isApiPath(req.path) || isRelayPath(req.path) || req.path.startsWith('/remotes/') || req.path.startsWith('/assets/')) return false;
    const html = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : PLACEHOLDER;
    res.status(200).setHeader('Cache-Control', 'no-cache').setHeader('Content-Security-Policy', csp).type('html').send(html);
    return true;
  };
}

/**
 * FRONTEND_BASE_URL on a slave node (new-api): the console lives elsewhere, so every page request outside the
 * API and the relay is sent there with a 301, path and query kept (new-api's NoRoute redirect).
 */
export function frontendRedirect(frontendBaseUrl: string): NotFoundFallback {
  return (req: Request, res: Response) => {
    if (isApiPath(req.path) || isRelayPath(req.path)) return false;
    res.redirect(301, `${frontendBaseUrl}${req.originalUrl}`);
    return true;
  };
}

function staticOptions() {
  return {
    fallthrough: true,
    setHeaders: (res: Response, path: string) => {
      const immutable = /\.[0-9a-f]{8,}\.(js|css|woff2?|png|svg)$/.test(path);
      res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      // Remotes are fetched by a shell that may live on another origin.
      res.setHeader('Access-Control-Allow-Origin', '*');
    },
  };
}
