// A fake Gemini API for Veo (predictLongRunning, operations, the video download; x-goog-api-key) on loopback.
import { type JsonServer, startJsonServer } from './json-server.js';

export interface FakeVeoOperation {
  name: string;
  done: boolean;
  error?: { code: number; message: string };
  response?: unknown;
}

export interface FakeVeo extends JsonServer {
  operations: Map<string, FakeVeoOperation>;
  /** Finishes an operation with one video, downloadable at the fake's /files URL with the key. */
  finish(name: string): void;
  update(name: string, patch: Partial<FakeVeoOperation>): void;
}

export const VEO_BYTES = { video: 'veo-mp4' };

export async function startFakeVeo(key = 'gemini-key'): Promise<FakeVeo> {
  const operations = new Map<string, FakeVeoOperation>();
  let counter = 0;
  let url = '';
  const server = await startJsonServer((req) => {
    if (req.headers['x-goog-api-key'] !== key)
      return { status: 403, body: { error: { code: 403, message: 'API key not valid', status: 'PERMISSION_DENIED' } } };
    const submit = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(req.path);
    if (req.method === 'POST' && submit) {
      if (req.body?.instances?.[0]?.prompt === 'refuse me')
        return { status: 400, body: { error: { code: 400, message: 'The prompt could not be submitted', status: 'INVALID_ARGUMENT' } } };
      const op = { name: `models/${submit[1]}/operations/op${++counter}`, done: false };
      operations.set(op.name, op);
      return { status: 200, body: { name: op.name } };
    }
    const op = req.method === 'GET' && operations.get(req.path.replace(/^\/v1beta\//, ''));
    if (op) return { status: 200, body: op };
    if (req.method === 'GET' && req.path.startsWith('/files/')) return { status: 200, body: VEO_BYTES };
    return undefined;
  });
  url = server.url;
  return {
    ...server,
    operations,
    update: (name, patch) => Object.assign(operations.get(name)!, patch),
    finish: (name) =>
      Object.assign(operations.get(name)!, {
        done: true,
        response: {
          generateVideoResponse: { generatedSamples: [{ video: { uri: `${url}/files/${name.split('/').pop()}:download?alt=media` } }] },
        },
      }),
  };
}
