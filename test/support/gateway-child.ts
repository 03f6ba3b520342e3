import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from '../fake-upstream/index.js';
import { ApiClient } from './api-client.js';
import { BUILT_MAIN, ensureServerBuilt } from './built-server.js';
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
  /** Arguments after the entry (a compose file's `command:` with the image's ENTRYPOINT). */
  args?: string[];
}

export async function startGatewayChild(
  env: Record<string, string> = {},
  { main = BUILT_MAIN, cwd, nodeArgs = [], args = [] }: ChildOptions = {},
): Promise<GatewayChild> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-child-'));
  const sqlitePath = join(dataDir, 'gw.db');
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], {
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

/** What a fresh gateway needs to relay a test's calls (see readyToRelay). */
export interface RelaySetup {
  /** The channel's name (its upstream key is `sk-up-<name>`), and the token's unless `tokenName` is given. */
  name: string;
  tokenName?: string;
  models: string[];
  upstreamUrl: string;
  /** Options saved first, by key (prices and ratios): each value is sent as JSON. */
  options: Record<string, unknown>;
}

/** Saves the options, adds an OpenAI-type channel serving the models from the upstream and an unlimited token: its key. */
export async function readyToRelay(root: ApiClient, setup: RelaySetup): Promise<string> {
  const ok = (what: string, res: { body: any; text: string }) => {
    if (!res.body?.success) throw new Error(`${what} failed: ${res.text}`);
  };
  for (const [key, value] of Object.entries(setup.options))
    ok(`option ${key}`, await root.put('/api/option/', { key, value: JSON.stringify(value) }));
  const { name, tokenName = name } = setup;
  ok(
    'channel',
    await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name, key: `sk-up-${name}`, models: setup.models.join(','), group: 'default', base_url: setup.upstreamUrl },
    }),
  );
  ok('token', await root.post('/api/token/', { name: tokenName, remain_quota: 0, unlimited_quota: true, expired_time: -1 }));
  const id = (await root.get(`/api/token/search?keyword=${encodeURIComponent(tokenName)}`)).body.data.items[0].id as number;
  return (await root.post(`/api/token/${id}/key`)).body.data.key as string;
}

/** A fake provider and a built gateway in its own process, ready to relay (readyToRelay), for child-process tests. */
export interface RelayChild {
  up: FakeUpstream;
  gw: GatewayChild;
  root: ApiClient;
  /** The unlimited token's key. */
  key: string;
  /** Kills the gateway if it still runs, then stops the provider. */
  close(): Promise<void>;
}

export async function startRelayChild(
  env: Record<string, string>,
  setup: Omit<RelaySetup, 'upstreamUrl'>,
  upstream: FakeUpstreamOptions = {},
): Promise<RelayChild> {
  ensureServerBuilt();
  const up = await startFakeUpstream(upstream);
  const gw = await startGatewayChild(env);
  const root = await gw.setupRoot();
  const key = await readyToRelay(root, { ...setup, upstreamUrl: up.url });
  return {
    up,
    gw,
    root,
    key,
    async close() {
      if (gw.child.exitCode === null) {
        gw.child.kill('SIGKILL');
        await gw.exited;
      }
      await up.close();
    },
  };
}
