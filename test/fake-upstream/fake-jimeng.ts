// A fake Volcengine visual API for Jimeng video on loopback. It checks each request's HMAC-SHA256
// signature itself (recomputed here from the raw request, independently of the gateway's signer).
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeJimengTask {
  task_id: string;
  req_key: string;
  status: 'in_queue' | 'generating' | 'done' | 'not_found' | 'expired';
  video_url: string;
}

export interface FakeJimeng {
  url: string;
  requests: { action: string; body: any; signatureOk: boolean }[];
  tasks: Map<string, FakeJimengTask>;
  update(id: string, patch: Partial<FakeJimengTask>): void;
  close(): Promise<void>;
}

function signatureOk(req: IncomingMessage, rawQuery: string, body: string, access: string, secret: string): boolean {
  const auth = /^HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/cn-north-1\/cv\/request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    String(req.headers.authorization ?? ''),
  );
  if (!auth || auth[1] !== access) return false;
  const [, , day, signedHeaders, signature] = auth;
  const bodyHash = createHash('sha256').update(body).digest('hex');
  if (req.headers['x-content-sha256'] !== bodyHash) return false;
  const headerLines = signedHeaders!
    .split(';')
    .map((name) => `${name}:${String(req.headers[name] ?? '').trim()}\n`)
    .join('');
  const query = rawQuery.split('&').filter(Boolean).sort().join('&');
  const canonical = `POST\n/\n${query}\n${headerLines}\n${signedHeaders}\n${bodyHash}`;
  const scope = `${day}/cn-north-1/cv/request`;
  const toSign = `HMAC-SHA256\n${req.headers['x-date']}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
  let key: Buffer = createHmac('sha256', secret).update(day!).digest();
  for (const part of ['cn-north-1', 'cv', 'request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex') === signature;
}

export async function startFakeJimeng(access = 'jimeng-ak', secret = 'jimeng-sk'): Promise<FakeJimeng> {
  const requests: FakeJimeng['requests'] = [];
  const tasks = new Map<string, FakeJimengTask>();
  let counter = 0;
  const send = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const [path, rawQuery = ''] = (req.url ?? '/').split('?');
    const action = new URLSearchParams(rawQuery).get('Action') ?? '';
    const body = text ? JSON.parse(text) : {};
    const ok = path === '/' && signatureOk(req, rawQuery, text, access, secret);
    requests.push({ action, body, signatureOk: ok });
    if (!ok) return send(res, { code: 50400, message: 'Access Denied: signature does not match' });
    if (action === 'CVSync2AsyncSubmitTask') {
      if (body.prompt === 'refuse me') return send(res, { code: 50411, message: 'Pre Text Risk Not Pass' });
      const task: FakeJimengTask = { task_id: `${++counter}7390`, req_key: body.req_key, status: 'in_queue', video_url: '' };
      tasks.set(task.task_id, task);
      return send(res, { code: 10000, message: 'Success', request_id: 'r1', data: { task_id: task.task_id } });
    }
    if (action === 'CVSync2AsyncGetResult') {
      const task = tasks.get(body.task_id);
      if (!task || task.req_key !== body.req_key) return send(res, { code: 50500, message: 'task not found for this req_key' });
      return send(res, { code: 10000, message: 'Success', data: { status: task.status, video_url: task.video_url } });
    }
    send(res, { code: 50400, message: `unknown action ${action}` });
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
