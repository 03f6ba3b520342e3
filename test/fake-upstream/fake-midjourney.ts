// A fake Midjourney-proxy on loopback for the task e2e tests: accepts submits, keeps each task's state
// (which the test moves along), answers list-by-condition like the real proxy, and serves images.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeMjTask {
  id: string;
  action: string;
  prompt: string;
  status: string;
  progress: string;
  imageUrl: string;
  failReason: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  buttons?: unknown[];
}

export interface FakeMjRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeMidjourney {
  url: string;
  requests: FakeMjRequest[];
  tasks: Map<string, FakeMjTask>;
  /** Overrides the answer of the next submits (code 21, 22, 24, an HTTP error …); undefined restores the default. */
  nextSubmit(answer: ((id: string) => { status?: number; body: unknown }) | undefined): void;
  /** Moves a task along (the poller reads it with list-by-condition). */
  update(id: string, patch: Partial<FakeMjTask>): void;
  /** How many list-by-condition calls were received. */
  listCalls(): number;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function startFakeMidjourney(secret = 'mj-upstream-secret'): Promise<FakeMidjourney> {
  const requests: FakeMjRequest[] = [];
  const tasks = new Map<string, FakeMjTask>();
  let counter = 0;
  let listCalls = 0;
  let override: ((id: string) => { status?: number; body: unknown }) | undefined;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (path.startsWith('/images/')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
      return;
    }
    if (req.headers['mj-api-secret'] !== secret) return send(res, 401, { code: 401, description: 'bad secret' });
    const submit = /^\/mj\/(submit\/[a-z-]+|insight-face\/swap)$/.exec(path);
    if (submit && req.method === 'POST') {
      const id = `${Date.now()}${String(++counter).padStart(4, '0')}`;
      if (override) {
        const answer = override(id);
        return send(res, answer.status ?? 200, answer.body);
      }
      tasks.set(id, {
        id,
        action: String(body?.action ?? submit[1]!.split('/')[1]!.toUpperCase()),
        prompt: String(body?.prompt ?? ''),
        status: 'SUBMITTED',
        progress: '0%',
        imageUrl: '',
        failReason: '',
        submitTime: Date.now(),
        startTime: 0,
        finishTime: 0,
      });
      return send(res, 200, { code: 1, description: 'Submit success', result: id, properties: { discordInstanceId: '1' } });
    }
    if (path === '/mj/task/list-by-condition' && req.method === 'POST') {
      listCalls++;
      const ids: string[] = Array.isArray(body?.ids) ? body.ids : [];
      return send(res, 200, ids.map((id) => tasks.get(id)).filter(Boolean));
    }
    const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(path);
    if (seed) return send(res, 200, { code: 1, description: 'ok', result: `seed-${seed[1]}` });
    send(res, 404, { code: 404, description: `no route ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    tasks,
    nextSubmit: (answer) => (override = answer),
    update: (id, patch) => {
      const task = tasks.get(id);
      if (!task) throw new Error(`no fake task ${id}`);
      Object.assign(task, patch);
    },
    listCalls: () => listCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
