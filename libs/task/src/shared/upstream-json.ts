import { Injectable } from '@nestjs/common';
import { type RelayChannel, redactChannelText } from '@gw/channel';
import { UpstreamClient } from '@gw/upstream';

/** One JSON call to a task provider (see TaskUpstream.json). */
export interface UpstreamJson {
  status: number;
  /** The answer with every piece of the channel's keys masked. */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
}

export interface UpstreamJsonInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  form?: FormData;
  timeoutMs?: number;
}

/**
 * The task providers' calls to their channel. The base URL is the admin's, so no address filtering of its
 * own, except the connect-time rule of a base URL checked public when it was saved (threats S5, DNS
 * rebinding): then, unless AllowPrivateOutboundUrls, the call's connections come from UpstreamClient's
 * checking pool, and a name that now answers with a private address fails the call as an unreachable
 * provider does (the caller's error, with no address in it). Other calls take the global fetch's own.
 */
@Injectable()
export class TaskUpstream {
  constructor(private readonly client: UpstreamClient) {}

  /**
   * The answer's text is cleared of the channel's keys before anything reads it: what a task stores (its
   * data, a failure reason) and what its routes answer come from here, and a provider or proxy may echo
   * the key it was sent.
   */
  async json(channel: RelayChannel, url: string, init: UpstreamJsonInit): Promise<UpstreamJson> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    // A form sets its own multipart content type (with the boundary).
    if (init.body !== undefined && !init.form) headers['content-type'] = 'application/json';
    const request: RequestInit = {
      method: init.method ?? (init.body === undefined && !init.form ? 'GET' : 'POST'),
      headers,
      body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
      redirect: 'manual',
    };
    // Node's fetch takes undici's Agent as its `dispatcher` (typed as its own copy of undici's, hence the assign).
    const dispatcher = this.client.publicOnlyDispatcher(channel.upstream);
    const res = await fetch(url, dispatcher ? Object.assign(request, { dispatcher }) : request);
    const text = redactChannelText(await res.text(), channel);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body };
  }
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
