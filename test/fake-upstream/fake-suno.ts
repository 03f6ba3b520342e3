// A fake Suno API server on loopback: submits answer {code:"success", data:<id>}, /suno/fetch reports the
// state each task was moved to by the test.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSunoTask {
  task_id: string;
  action: string;
  status: string;
  progress: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  data: unknown;
}

export interface FakeSuno {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers']; body: any }[];
  tasks: Map<string, FakeSunoTask>;
  nextSubmit(answer: { status: number; body: unknown } | undefined): void;
  update(id: string, patch: Partial<FakeSunoTask>): void;
  close(): Promise<void>;
}

export async function startFakeSuno(key = 'suno-upstream-key'): Promise<FakeSuno> {
  const requests: FakeSuno['requests'] = [];
  const tasks = new Map<string, FakeSunoTask>();
  let counter = 0;
  let override: { status: number; body: unknown } | undefined;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ path, headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${key}`) return send(res, 401, { code: 'unauthorized', message: 'bad key' });
    const submit = /^\/suno\/submit\/(music|lyrics)$/.exec(path);
    if (submit) {
      if (override) return send(res, override.status, override.body);
      const id = `suno-${++counter}-${Date.now()}`;
      tasks.set(id, {
        task_id: id,
        action: submit[1]!.toUpperCase(),
        status: 'SUBMITTED',
        progress: '0%',
        fail_reason: '',
        submit_time: Math.floor(Date.now() / 1000),
        start_time: 0,
        finish_time: 0,
        data: null,
      });
      return send(res, 200, { code: 'success', message: '', data: id });
    }
    if (path === '/suno/fetch') {
      const ids: string[] = Array.isArray(body?.ids) ? body.ids : [];
      return send(res, 200, { code: 'success', message: '', data: ids.map((id) => tasks.get(id)).filter(Boolean) });
    }
    send(res, 404, { code: 'not_found', message: path });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    tasks,
    nextSubmit: (answer) => (override = answer),
    update: (id, patch) => Object.assign(tasks.get(id)!, patch),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
