import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// BROWSER_GATEWAY_MAIN points the suite at another server build (e.g. a private one while dist/ is being rebuilt).
const GATEWAY_MAIN = process.env.BROWSER_GATEWAY_MAIN ?? 'dist/apps/gateway/src/main.js';

export interface GatewayProcess {
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForStatus(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/api/status`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`gateway did not answer /api/status within 30 s:\n${output()}`);
}

/**
 * The built gateway (npm run build), as an operator runs it: fresh SQLite file, free port, console served at /.
 * `env` adds or overrides variables (e.g. UPDATE_CHECK_URL pointing at a fake feed).
 */
export async function startGatewayProcess(env: Record<string, string> = {}): Promise<GatewayProcess> {
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: run npm run build first`);
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-browser-'));
  const port = await freePort();
  let log = '';
  const child = spawn(process.execPath, [GATEWAY_MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      SQLITE_PATH: join(dataDir, 'gw.db'),
      SESSION_SECRET: 'test-secret-0123456789',
      GLOBAL_API_RATE_LIMIT: '100000',
      CRITICAL_RATE_LIMIT: '100000',
      // bcrypt's cheapest cost: the pages log in many users; the default cost is covered by password.spec.
      PASSWORD_HASH_COST: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  await waitForStatus(url, child, () => log);
  return {
    url,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
