import { type RelayChannel, redactChannelText } from '@gw/channel';

/** One JSON call to a task provider; the channel's base URL is the admin's, so no address filtering here. */
export interface UpstreamJson {
  status: number;
  /** The answer with every piece of the channel's keys masked. */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
}

/**
 * The answer's text is cleared of the channel's keys before anything reads it: what a task stores (its
 * data, a failure reason) and what its routes answer come from here, and a provider or proxy may echo
 * the key it was sent.
 */
export async function callUpstreamJson(
  channel: RelayChannel,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown; form?: FormData; timeoutMs?: number },
): Promise<UpstreamJson> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  // A form sets its own multipart content type (with the boundary).
  if (init.body !== undefined && !init.form) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined && !init.form ? 'GET' : 'POST'),
    headers,
    body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
    redirect: 'manual',
  });
  const text = redactChannelText(await res.text(), channel);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, text, body };
}

/** Joins a channel base URL and a path without doubling the slash. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/** A data URL's bytes and type, or undefined for anything else. */
export function fromDataUrl(value: unknown): { bytes: Buffer; type: string } | undefined {
  const match = typeof value === 'string' ? /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(value) : null;
  return match ? { type: match[1]!, bytes: Buffer.from(match[2]!, 'base64') } : undefined;
}

/**
 * A JSON body as multipart form fields, with the data-URL fields named in `files` sent as file parts
 * (a provider that takes an uploaded reference image in a multipart submit).
 */
export function toMultipart(body: Record<string, unknown>, files: readonly string[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const file = files.includes(name) ? fromDataUrl(value) : undefined;
    if (file) form.append(name, new Blob([new Uint8Array(file.bytes)], { type: file.type }), `${name}.${file.type.split('/')[1] ?? 'bin'}`);
    else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}
