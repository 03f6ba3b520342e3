// Fakes of the providers with their own wire formats (issue #18 part A), one small file each, behind one
// loopback server: each replays its wire fixtures (test/fixtures/providers/) after checking the
// provider's auth the way the provider would (OAuth token, JWT, TC3 signature, keys).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { aiProxyLibraryFake } from './ai-proxy-library.js';
import { baiduFake } from './baidu.js';
import { dashScopeFake } from './dashscope.js';
import { hunyuanFake } from './hunyuan.js';
import { mokaFake } from './mokaai.js';
import { ollamaFake } from './ollama.js';
import { palmFake } from './palm.js';
import { sparkUpgrade } from './spark.js';
import type { NativeExchange, ProviderFake } from './types.js';
import { sendJson } from './types.js';
import { zhipuV3Fake } from './zhipu-v3.js';

export { BAIDU_KEY } from './baidu.js';
export { DASHSCOPE_KEY } from './dashscope.js';
export { PALM_KEY } from './palm.js';

const FAKES: ProviderFake[] = [baiduFake, zhipuV3Fake, dashScopeFake, hunyuanFake, ollamaFake, palmFake, aiProxyLibraryFake, mokaFake];
export type NativeProvider = (typeof FAKES)[number]['name'];

export interface NativeRequest {
  provider: string;
  method: string;
  path: string;
  headers: NativeExchange['req']['headers'];
  body: any;
}

export interface FakeNativeUpstream {
  url: string;
  requests: NativeRequest[];
  /** The next call to this provider answers its error fixture. */
  failNext(provider: NativeProvider): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeNativeUpstream(): Promise<FakeNativeUpstream> {
  const requests: NativeRequest[] = [];
  const failing = new Set<string>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const fake = FAKES.find((candidate) => candidate.owns({ req, path: url.pathname }));
    requests.push({ provider: fake?.name ?? '', method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body });
    if (!fake) return sendJson(res, 404, { error: `fake native upstream: no provider for ${req.method} ${url.pathname}` });
    const fail = failing.delete(fake.name);
    fake.answer({ req, res, path: url.pathname, query: url.searchParams, raw, body, fail });
  });
  // iFlytek Spark speaks WebSocket: the upgrade is its fake's.
  server.on('upgrade', (req, socket) => {
    const entry: NativeRequest = { provider: 'spark', method: 'GET', path: req.url ?? '/', headers: req.headers, body: undefined };
    requests.push(entry);
    void sparkUpgrade(req, socket, failing.delete('spark'), (body) => {
      entry.body = body;
    }).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext: (provider) => failing.add(provider),
    reset: () => {
      requests.length = 0;
      failing.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
