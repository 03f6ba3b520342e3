import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = 'dist/apps/gateway/src/main.js';

/** The compiled gateway, started the way `npm start` starts it. */
describe('the built gateway', () => {
  let child: ChildProcess;
  let url = '';
  const dir = mkdtempSync(join(tmpdir(), 'gw-built-'));

  beforeAll(async () => {
    if (!existsSync(MAIN)) spawnSync('npm', ['run', 'build:server'], { stdio: 'inherit' });
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: join(dir, 'gw.db'), DATA_DIR: dir },
    });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), 30_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /gateway listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('answers the API and serves the console (or its placeholder) at /', async () => {
    const status = await fetch(`${url}/api/status`).then((res) => res.json());
    expect(status).toMatchObject({ success: true, data: { setup: false } });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/html/);
    const deepLink = await fetch(`${url}/token`);
    expect(deepLink.status).toBe(200);
    expect(await deepLink.text()).toMatch(/<html/i);
  });

  it('answers unknown relay paths in the OpenAI error shape', async () => {
    const res = await fetch(`${url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { message: 'Invalid URL (GET /v1/nothing-here)', type: 'invalid_request_error' } });
  });

  it('stops at boot with one line naming a bad variable', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: 'not-a-port', DATA_DIR: dir },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("Invalid environment variable PORT: expected an integer, got 'not-a-port'");
  });
});
