import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import { ConsoleController } from './console.controller.js';
import { consoleCsp, consoleStaticMiddlewares, spaFallback } from './console-static.js';

/** A fake built console: the shell's index.html and one hashed chunk, plus a remote's manifest. */
function fakeBuild(dir: string): void {
  mkdirSync(join(dir, 'shell', 'dist', 'static', 'js'), { recursive: true });
  writeFileSync(join(dir, 'shell', 'dist', 'index.html'), '<!doctype html><html><body>shell</body></html>');
  writeFileSync(join(dir, 'shell', 'dist', 'static', 'js', 'index.0123abcd45.js'), 'console.log(1)');
  mkdirSync(join(dir, 'playground', 'dist'), { recursive: true });
  writeFileSync(join(dir, 'playground', 'dist', 'mf-manifest.json'), '{"id":"console_playground"}');
}

describe('console static serving', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-static-'));
  let server: Server;
  let base = '';

  beforeAll(async () => {
    fakeBuild(dir);
    const app = express();
    for (const { path, handler } of consoleStaticMiddlewares(dir)) app.use(path, handler);
    const fallback = spaFallback(dir, ['/remotes/admin/mf-manifest.json', 'https://remotes.example.com/user/mf-manifest.json']);
    app.use((req, res) => {
      if (!fallback(req, res)) res.status(404).json({ fellThrough: req.path });
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers console routes with the shell, never cached', async () => {
    const res = await fetch(`${base}/token`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('shell');
  });

  it("sends a Content-Security-Policy with the console page that admits the remotes' origins and nothing else for scripts", async () => {
    const csp = (await fetch(`${base}/`)).headers.get('content-security-policy') ?? '';
    const scriptSrc = csp.split('; ').find((d) => d.startsWith('script-src '));
    expect(scriptSrc).toBe("script-src 'self' https://remotes.example.com https://challenges.cloudflare.com https://telegram.org");
    expect(csp).toContain("style-src 'self' 'unsafe-inline' https://remotes.example.com");
    expect(consoleCsp([])).toContain("style-src 'self' 'unsafe-inline';");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(consoleCsp([])).not.toContain('undefined');
  });

  it('caches hashed chunks for a year and lets other origins fetch a remote manifest', async () => {
    const chunk = await fetch(`${base}/static/js/index.0123abcd45.js`);
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const manifest = await fetch(`${base}/remotes/playground/mf-manifest.json`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    expect(manifest.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('leaves API, relay and missing remote files to the API error handlers', async () => {
    for (const path of ['/api/nothing', '/v1/nothing', '/remotes/admin/mf-manifest.json']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ fellThrough: path });
    }
  });
});

describe('GET /api/console/remotes', () => {
  // loadConfig keeps a generated session secret in DATA_DIR.
  const dataDir = mkdtempSync(join(tmpdir(), 'console-cfg-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('points at the remotes the gateway serves by default', () => {
    const controller = new ConsoleController(loadConfig({ DATA_DIR: dataDir }));
    expect(controller.remotes()).toEqual({
      admin: '/remotes/admin/mf-manifest.json',
      user: '/remotes/user/mf-manifest.json',
      playground: '/remotes/playground/mf-manifest.json',
    });
  });

  it('lets a team deploy one remote elsewhere through CONSOLE_REMOTE_*_URL', () => {
    const config = loadConfig({
      DATA_DIR: dataDir,
      CONSOLE_REMOTE_PLAYGROUND_URL: 'https://playground.example.com/mf-manifest.json',
    });
    expect(new ConsoleController(config).remotes()).toMatchObject({
      admin: '/remotes/admin/mf-manifest.json',
      playground: 'https://playground.example.com/mf-manifest.json',
    });
  });
});
