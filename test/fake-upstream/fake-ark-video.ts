// A fake Volcengine Ark video API (`/api/v3/contents/generations/tasks`, Bearer key) on loopback.
import { type JsonServer, startJsonServer } from './json-server.js';

export interface FakeArkTask {
  id: string;
  model: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  content?: { video_url: string };
  usage?: { completion_tokens: number; total_tokens: number };
  error?: { code: string; message: string };
}

export interface FakeArkVideo extends JsonServer {
  tasks: Map<string, FakeArkTask>;
  update(id: string, patch: Partial<FakeArkTask>): void;
}

export async function startFakeArkVideo(key = 'ark-key'): Promise<FakeArkVideo> {
  const tasks = new Map<string, FakeArkTask>();
  let counter = 0;
  const server = await startJsonServer((req) => {
    if (req.headers.authorization !== `Bearer ${key}`)
      return { status: 401, body: { error: { code: 'AuthenticationError', message: 'the API key is invalid' } } };
    if (req.method === 'POST' && req.path === '/api/v3/contents/generations/tasks') {
      if (!Array.isArray(req.body?.content))
        return { status: 400, body: { error: { code: 'InvalidParameter', message: 'content is required' } } };
      const text = req.body.content.find((item: any) => item.type === 'text')?.text;
      if (text === 'refuse me')
        return {
          status: 400,
          body: { error: { code: 'InputTextSensitiveContentDetected', message: 'the prompt may contain sensitive information' } },
        };
      const task: FakeArkTask = { id: `cgt-${++counter}`, model: req.body.model, status: 'queued' };
      tasks.set(task.id, task);
      return { status: 200, body: { id: task.id } };
    }
    const one = /^\/api\/v3\/contents\/generations\/tasks\/([^/]+)$/.exec(req.path);
    const task = one && tasks.get(one[1]!);
    if (req.method === 'GET' && task) return { status: 200, body: { ...task, created_at: 1, updated_at: 2 } };
    return undefined;
  });
  return { ...server, tasks, update: (id, patch) => Object.assign(tasks.get(id)!, patch) };
}
