// A fake Vidu API (`/ent/v2/*`, `Authorization: Token <key>`) on loopback; tests move each task's state.
import { type JsonServer, startJsonServer } from './json-server.js';

export interface FakeViduTask {
  task_id: string;
  endpoint: string;
  state: 'created' | 'queueing' | 'processing' | 'success' | 'failed';
  err_code: string;
  creations: { id: string; url: string; cover_url: string }[];
}

export interface FakeVidu extends JsonServer {
  tasks: Map<string, FakeViduTask>;
  update(id: string, patch: Partial<FakeViduTask>): void;
}

export async function startFakeVidu(key = 'vidu-key'): Promise<FakeVidu> {
  const tasks = new Map<string, FakeViduTask>();
  let counter = 0;
  const server = await startJsonServer((req) => {
    if (req.headers.authorization !== `Token ${key}`) return { status: 401, body: { message: 'invalid token' } };
    const submit = /^\/ent\/v2\/(text2video|img2video|start-end2video|reference2video)$/.exec(req.path);
    if (req.method === 'POST' && submit) {
      if (req.body?.prompt === 'refuse me') return { status: 400, body: { code: 'CreditInsufficient', message: 'credit insufficient' } };
      const task: FakeViduTask = { task_id: `vidu-${++counter}`, endpoint: submit[1]!, state: 'created', err_code: '', creations: [] };
      tasks.set(task.task_id, task);
      return {
        status: 200,
        body: { task_id: task.task_id, state: 'created', model: req.body?.model, created_at: new Date().toISOString() },
      };
    }
    const fetch = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/.exec(req.path);
    const task = fetch && tasks.get(fetch[1]!);
    if (req.method === 'GET' && task)
      return { status: 200, body: { state: task.state, err_code: task.err_code, creations: task.creations } };
    return undefined;
  });
  return { ...server, tasks, update: (id, patch) => Object.assign(tasks.get(id)!, patch) };
}
