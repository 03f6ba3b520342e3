// A fake Kling API on loopback: checks the HS256 JWT made from "accessKey|secretKey", accepts
// text2video / image2video submits and reports the state the test moves each task to.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeKlingTask {
  task_id: string;
  kind: 'text2video' | 'image2video';
  task_status: 'submitted' | 'processing' | 'succeed' | 'failed';
  task_status_msg: string;
  videos: { id: string; url: string; duration: string }[];
  body: any;
}

export interface FakeKling {
  url: string;
  requests: {
    method: string;
    path: string;
    headers: IncomingMessage['headers'];
    body: any;
    jwt?: { iss: string; exp: number; nbf: number };
  }[];
  tasks: Map<string, FakeKlingTask>;
  update(id: string, patch: Partial<FakeKlingTask>): void;
  close(): Promise<void>;
}

function verifyJwt(token: string, access: string, secret: string): { iss: string; exp: number; nbf: number } | undefined {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return undefined;
  if (createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url') !== signature) return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  return claims.iss === access && claims.nbf <= now && claims.exp > now ? claims : undefined;
}

export async function startFakeKling(access = 'kling-ak', secret = 'kling-sk'): Promise<FakeKling> {
  const requests: FakeKling['requests'] = [];
  const tasks = new Map<string, FakeKlingTask>();
  let counter = 0;
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
    const jwt = verifyJwt(String(req.headers.authorization ?? '').replace(/^Bearer /, ''), access, secret);
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body, jwt });
    if (!jwt) return send(res, 401, { code: 1000, message: 'Authentication failed' });
    const submit = /^\/v1\/videos\/(text2video|image2video)$/.exec(path);
    if (req.method === 'POST' && submit) {
      if (body?.prompt === 'refuse me') return send(res, 400, { code: 1301, message: 'prompt violates the content policy' });
      const id = `kling-${++counter}-${Date.now()}`;
      tasks.set(id, {
        task_id: id,
        kind: submit[1] as FakeKlingTask['kind'],
        task_status: 'submitted',
        task_status_msg: '',
        videos: [],
        body,
      });
      return send(res, 200, {
        code: 0,
        message: 'SUCCEED',
        request_id: `r${counter}`,
        data: { task_id: id, task_status: 'submitted', created_at: Date.now(), updated_at: Date.now() },
      });
    }
    const fetch = /^\/v1\/videos\/(text2video|image2video)\/([^/]+)$/.exec(path);
    const task = fetch ? tasks.get(fetch[2]!) : undefined;
    if (req.method === 'GET' && task && task.kind === fetch![1]) {
      return send(res, 200, {
        code: 0,
        message: 'SUCCEED',
        data: {
          task_id: task.task_id,
          task_status: task.task_status,
          task_status_msg: task.task_status_msg,
          task_result: { videos: task.videos },
          created_at: Date.now(),
          updated_at: Date.now(),
        },
      });
    }
    send(res, 404, { code: 404, message: `no route ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    tasks,
    update: (id, patch) => Object.assign(tasks.get(id)!, patch),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
