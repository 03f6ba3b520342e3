// A fake MiniMax Hailuo video API (video_generation, query, files/retrieve; Bearer key) on loopback.
import { type JsonServer, startJsonServer } from './json-server.js';

export interface FakeHailuoTask {
  task_id: string;
  status: 'Preparing' | 'Queueing' | 'Processing' | 'Success' | 'Fail';
  file_id: string;
  base_resp: { status_code: number; status_msg: string };
}

export interface FakeMiniMaxVideo extends JsonServer {
  tasks: Map<string, FakeHailuoTask>;
  update(id: string, patch: Partial<FakeHailuoTask>): void;
}

const OK = { status_code: 0, status_msg: 'success' };

export async function startFakeMiniMaxVideo(key = 'minimax-key'): Promise<FakeMiniMaxVideo> {
  const tasks = new Map<string, FakeHailuoTask>();
  let counter = 0;
  const server = await startJsonServer((req) => {
    if (req.headers.authorization !== `Bearer ${key}`)
      return { status: 200, body: { base_resp: { status_code: 1004, status_msg: 'login fail' } } };
    if (req.method === 'POST' && req.path === '/v1/video_generation') {
      if (req.body?.prompt === 'refuse me')
        return { status: 200, body: { task_id: '', base_resp: { status_code: 1026, status_msg: 'input new_sensitive' } } };
      const task: FakeHailuoTask = { task_id: `${++counter}06170000`, status: 'Queueing', file_id: '', base_resp: OK };
      tasks.set(task.task_id, task);
      return { status: 200, body: { task_id: task.task_id, base_resp: OK } };
    }
    if (req.method === 'GET' && req.path === '/v1/query/video_generation') {
      const task = tasks.get(req.query.get('task_id') ?? '');
      return task
        ? { status: 200, body: task }
        : { status: 200, body: { base_resp: { status_code: 2013, status_msg: 'invalid task_id' } } };
    }
    if (req.method === 'GET' && req.path === '/v1/files/retrieve') {
      const id = req.query.get('file_id');
      return { status: 200, body: { file: { file_id: id, download_url: `https://minimax.example/files/${id}.mp4` }, base_resp: OK } };
    }
    return undefined;
  });
  return { ...server, tasks, update: (id, patch) => Object.assign(tasks.get(id)!, patch) };
}
