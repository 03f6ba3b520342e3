// A fake OpenAI-compatible video API (POST /v1/videos, GET /v1/videos/:id, /content, /remix) on loopback.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeVideo {
  id: string;
  object: 'video';
  model: string;
  status: string;
  progress: number;
  created_at: number;
  completed_at?: number;
  seconds: string;
  size: string;
  prompt: string;
  remixed_from_video_id?: string;
  error?: { message: string; code: string };
}

export interface FakeVideoServer {
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: any }[];
  videos: Map<string, FakeVideo>;
  update(id: string, patch: Partial<FakeVideo>): void;
  /** What GET /v1/videos/:id/content answers for this video instead of VIDEO_BYTES. */
  setContent(id: string, bytes: Buffer): void;
  close(): Promise<void>;
}

export const VIDEO_BYTES = Buffer.from('fake-mp4-bytes');

async function readForm(raw: Buffer, type: string): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries())
    out[name] = typeof value === 'string' ? value : { file: value.name, type: value.type, size: value.size };
  return out;
}

export async function startFakeVideo(key = 'video-upstream-key'): Promise<FakeVideoServer> {
  const requests: FakeVideoServer['requests'] = [];
  const videos = new Map<string, FakeVideo>();
  const contents = new Map<string, Buffer>();
  let counter = 0;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const create = (body: any, from?: string): FakeVideo => {
    const video: FakeVideo = {
      id: `video_${++counter}${Date.now()}`,
      object: 'video',
      model: String(body?.model ?? 'sora-2'),
      status: 'queued',
      progress: 0,
      created_at: Math.floor(Date.now() / 1000),
      seconds: String(body?.seconds ?? '4'),
      size: String(body?.size ?? '720x1280'),
      prompt: String(body?.prompt ?? ''),
    };
    if (from) video.remixed_from_video_id = from;
    videos.set(video.id, video);
    return video;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const type = String(req.headers['content-type'] ?? '');
    // The official SDKs send a reference image as multipart; its file parts are recorded by type and size.
    const body = type.startsWith('multipart/form-data')
      ? await readForm(raw, type)
      : raw.length
        ? JSON.parse(raw.toString('utf8'))
        : undefined;
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${key}`) return send(res, 401, { error: { message: 'bad key', code: 'invalid_api_key' } });
    if (req.method === 'POST' && path === '/v1/videos') {
      if (body?.prompt === 'refuse me')
        return send(res, 400, { error: { message: 'prompt rejected by moderation', code: 'moderation_blocked' } });
      // A provider that quotes the key it was sent (as OpenAI's "Incorrect API key provided: ..." does).
      if (body?.prompt === 'quote my key')
        return send(res, 400, { error: { message: `the key ${key} may not use this model`, code: 'model_not_allowed' } });
      return send(res, 200, create(body));
    }
    const remix = /^\/v1\/videos\/([^/]+)\/remix$/.exec(path);
    if (req.method === 'POST' && remix) {
      if (!videos.has(remix[1]!)) return send(res, 404, { error: { message: 'no such video', code: 'not_found' } });
      return send(res, 200, create({ ...body, model: videos.get(remix[1]!)!.model, seconds: videos.get(remix[1]!)!.seconds }, remix[1]));
    }
    const content = /^\/v1\/videos\/([^/]+)\/content$/.exec(path);
    if (content && videos.get(content[1]!)?.status === 'completed') {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.end(contents.get(content[1]!) ?? VIDEO_BYTES);
      return;
    }
    const one = /^\/v1\/videos\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && one && videos.has(one[1]!)) return send(res, 200, videos.get(one[1]!));
    send(res, 404, { error: { message: `no route ${path}`, code: 'not_found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    videos,
    update: (id, patch) => Object.assign(videos.get(id)!, patch),
    setContent: (id, bytes) => contents.set(id, bytes),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
