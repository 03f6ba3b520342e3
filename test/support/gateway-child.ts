import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from './api-client.js';
import { BUILT_MAIN } from './built-server.js';
import { ROOT } from './test-gateway.js';

/** The built gateway in its own process (signals, exit codes, stdout are real), on a fresh SQLite file. */
export interface GatewayChild {
  child: ChildProcess;
  url: string;
  dataDir: string;
  sqlitePath: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Runs the setup wizard and returns a logged-in root client. */
  setupRoot(): Promise<ApiClient>;
}

export interface ChildOptions {
  main?: string;
  cwd?: string;
  /** Node flags before the entry (the image's CMD passes its V8 flags). */
  nodeArgs?: string[];
}

export async function startGatewayChild(
  env: Record<string, string> = {},
  { main = BUILT_MAIN, cwd, nodeArgs = [] }: ChildOptions = {},
): Promise<GatewayChild> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-child-'));
  const sqlitePath = join(dataDir, 'gw.db');
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, main], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      SQLITE_PATH: sqlitePath,
      DATA_DIR: dataDir,
      SESSION_SECRET: 'child-session-secret-0123456789',
      GLOBAL_API_RATE_LIMIT: '1000000',
      CRITICAL_RATE_LIMIT: '1000000',
      PASSWORD_HASH_COST: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), 120_000);
    const look = () => {
      const match = /gateway listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    void exited.then(({ code }) => reject(new Error(`gateway exited with ${code} before listening:\n${output}`)));
  });
  return {
    child,
    url,
    dataDir,
    sqlitePath,
    exited,
    output: () => output,
    async setupRoot() {
      const anon = new ApiClient(url);
      const setup = await anon.post('/api/setup', {
        ...ROOT,
        confirmPassword: ROOT.password,
        SelfUseModeEnabled: false,
        DemoSiteEnabled: false,
      });
      if (!setup.body?.success) throw new Error(`setup failed: ${setup.text}`);
      const root = new ApiClient(url);
      const login = await root.login(ROOT.username, ROOT.password);
      if (!login.body?.success) throw new Error(`root login failed: ${login.text}`);
      return root;
    },
  };
}
