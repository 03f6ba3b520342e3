import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_MAIN, ensureServerBuilt } from '../support/built-server.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';

const DOCKERFILE = readFileSync('Dockerfile', 'utf8');
const COMPOSE = readFileSync('docker-compose.yml', 'utf8');
const WORKSPACES = ['shell', 'admin', 'user', 'playground', 'shared'];

/** The runtime stage's ENTRYPOINT: node flags and entry, as the image runs them (a `command:` only adds arguments). */
function imageCommand(): { nodeArgs: string[]; main: string } {
  expect(DOCKERFILE).not.toMatch(/^CMD /m);
  const match = /^ENTRYPOINT (\[.*\])$/m.exec(DOCKERFILE);
  const command = JSON.parse(match![1]!) as string[];
  expect(command[0]).toBe('node');
  return { nodeArgs: command.slice(1, -1), main: command[command.length - 1]! };
}

function engine(): string | undefined {
  for (const tool of ['docker', 'podman']) {
    if (spawnSync(tool, ['info'], { stdio: 'ignore', timeout: 10_000 }).status === 0) return tool;
  }
  return undefined;
}

describe('the container recipe', () => {
  it('builds in stages and runs unprivileged with /data, a health check and the drain-friendly stop', () => {
    const runtime = DOCKERFILE.slice(DOCKERFILE.indexOf('AS runtime'));
    expect(DOCKERFILE).toMatch(/FROM toolchain AS build/);
    expect(DOCKERFILE).toMatch(/FROM \$\{NODE_IMAGE\} AS runtime/);
    expect(DOCKERFILE).toMatch(/apt-get install -y --no-install-recommends python3 make g\+\+/);
    expect(DOCKERFILE).toMatch(/npm ci --omit=dev --workspaces=false/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(runtime).toMatch(/SQLITE_PATH=\/data\/one-api\.db/);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n\s+CMD .*\/readyz/m);
    expect(runtime).not.toMatch(/python3|g\+\+/);
    expect(imageCommand().main).toBe(BUILT_MAIN);
  });

  it('composes the gateway with MySQL 8 and Redis through SQL_DSN and REDIS_CONN_STRING', () => {
    expect(COMPOSE).toMatch(/image: mysql:8/);
    expect(COMPOSE).toMatch(/image: redis:7/);
    expect(COMPOSE).toMatch(/SQL_DSN: "gateway:gateway-password@tcp\(mysql:3306\)\/gateway"/);
    expect(COMPOSE).toMatch(/REDIS_CONN_STRING: "redis:\/\/redis:6379"/);
    expect(COMPOSE).toMatch(/condition: service_healthy/);
    expect(COMPOSE).toMatch(/\.\/data:\/data/);
  });
});

/**
 * No container engine here: the runtime stage's steps are replayed instead. A clean directory gets the
 * manifests and the build output, `npm ci --omit=dev --workspaces=false` installs the production
 * dependencies (install scripts off: the native SQLite module built for this Node is copied, as the
 * image's prod-deps stage compiles it), and the gateway starts from there and answers.
 */
describe('the image steps, replayed without an engine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-image-'));
  let gw: GatewayChild;

  beforeAll(async () => {
    ensureServerBuilt();
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(file, join(dir, file));
    for (const name of WORKSPACES) {
      mkdirSync(join(dir, 'frontends', name), { recursive: true });
      copyFileSync(join('frontends', name, 'package.json'), join(dir, 'frontends', name, 'package.json'));
      if (existsSync(join('frontends', name, 'dist')))
        cpSync(join('frontends', name, 'dist'), join(dir, 'frontends', name, 'dist'), { recursive: true });
    }
    cpSync('dist', join(dir, 'dist'), { recursive: true });
    execFileSync('npm', ['ci', '--omit=dev', '--workspaces=false', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: 'pipe',
    });
    const native = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    mkdirSync(join(dir, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(native, join(dir, native));
    const { nodeArgs, main } = imageCommand();
    gw = await startGatewayChild(
      { NODE_ENV: 'production', DATA_DIR: join(dir, 'data'), SQLITE_PATH: join(dir, 'data', 'one-api.db') },
      // new-api's docker-compose `command:`, kept by an operator who swapped the image: arguments to the entrypoint.
      { main: resolve(dir, main), cwd: dir, nodeArgs, args: ['--log-dir', '/app/logs'] },
    );
  }, 300_000);

  afterAll(async () => {
    if (gw && gw.child.exitCode === null) {
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs no dev tool and no console workspace', () => {
    for (const devOnly of ['vitest', 'openai', 'playwright-core', 'react', '@rsbuild/core', 'pino-pretty']) {
      expect(existsSync(join(dir, 'node_modules', devOnly)), devOnly).toBe(false);
    }
  });

  it('starts from the clean copy, answers /api/status and is ready, then stops cleanly on SIGTERM', async () => {
    const status = await fetch(`${gw.url}/api/status`).then((res) => res.json());
    expect(status).toMatchObject({ success: true, data: { setup: false } });
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    expect(existsSync(join(dir, 'data', 'one-api.db'))).toBe(true);
    // Production logs are JSON lines.
    const line = gw
      .output()
      .split('\n')
      .find((l) => l.includes('gateway listening on'));
    expect(JSON.parse(line!)).toMatchObject({ level: 'info', msg: expect.stringMatching(/^gateway listening on/) });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toEqual({ code: 0, signal: null });
  });
});

describe.skipIf(engine() === undefined)('the image, built and run by a container engine', () => {
  it('builds, starts and turns healthy', () => {
    const tool = engine()!;
    const tag = `ai-gateway-test:${Date.now()}`;
    execFileSync(tool, ['build', '-t', tag, '.'], { stdio: 'inherit', timeout: 1_200_000 });
    const id = execFileSync(tool, ['run', '-d', '-p', '127.0.0.1::3000', '-e', 'SESSION_SECRET=image-test-secret', tag], {
      encoding: 'utf8',
    }).trim();
    try {
      const deadline = Date.now() + 120_000;
      let health = '';
      while (Date.now() < deadline && health !== 'healthy') {
        health = execFileSync(tool, ['inspect', '-f', '{{.State.Health.Status}}', id], { encoding: 'utf8' }).trim();
        if (health !== 'healthy') spawnSync('sleep', ['2']);
      }
      expect(health).toBe('healthy');
    } finally {
      spawnSync(tool, ['rm', '-f', id]);
      spawnSync(tool, ['rmi', tag]);
    }
  }, 1_500_000);
});
