import type { IncomingMessage } from 'node:http';

/** A multipart upload (images edits, audio transcriptions): its text fields and the form itself. */
export interface MultipartBody {
  fields: Record<string, string>;
  form: FormData;
  /** Names of the file parts. */
  files: string[];
}

export class MultipartError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * Reads a multipart/form-data body up to `limit` bytes and parses it with Node's own FormData (undici),
 * so no upload library is needed. Text fields come back as strings; files stay in the form for forwarding.
 */
export async function readMultipart(req: IncomingMessage, limit: number): Promise<MultipartBody> {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^multipart\/form-data\s*;/i.test(type)) {
    req.resume();
    throw new MultipartError('request body must be multipart/form-data', 400);
  }
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    throw new MultipartError('request entity too large', 413);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new MultipartError('request entity too large', 413);
    }
    chunks.push(chunk);
  }
  let form: FormData;
  try {
    form = await new Response(Buffer.concat(chunks, size), { headers: { 'content-type': type } }).formData();
  } catch {
    throw new MultipartError('request body is not valid multipart/form-data', 400);
  }
  const fields: Record<string, string> = {};
  const files: string[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else files.push(name);
  }
  return { fields, form, files };
}

/** The form re-encoded for the provider, with the upstream model name in place of the client's. */
export async function encodeMultipart(form: FormData, model: string): Promise<{ bytes: Buffer; contentType: string }> {
  const out = new FormData();
  for (const [name, value] of form.entries()) if (name !== 'model') out.append(name, value);
  out.append('model', model);
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: out });
  return { bytes: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? 'multipart/form-data' };
}
