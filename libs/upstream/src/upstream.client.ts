import { PassThrough, type Readable } from 'node:stream';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Agent, errors, request } from 'undici';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { buildBalanceRequest, buildUpstreamRequest, type BuiltRequest } from './upstream-url.js';
import { UpstreamError, type UpstreamEndpoint, type UpstreamRequestInit, type UpstreamResponse, type UpstreamTarget } from './upstream.types.js';

/** First-byte timeout when RELAY_TIMEOUT is 0 (new-api waits forever; we do not). */
export const DEFAULT_HEADERS_TIMEOUT_SECONDS = 300;

/**
 * The one HTTP client for provider calls (relay, channel tests, balances, model lists). One keep-alive
 * pool per origin, bounded connect / first-byte / idle timeouts, redirects never followed (a 3xx is an
 * error, so the key never travels to another host), and capped json()/text() reads.
 */
@Injectable()
export class UpstreamClient implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly azureDefaultApiVersion: string;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'relay'>) {
    const relay = config.relay;
    this.headersTimeoutMs = (relay.timeoutSeconds || DEFAULT_HEADERS_TIMEOUT_SECONDS) * 1000;
    this.bodyTimeoutMs = relay.streamingTimeoutSeconds * 1000;
    this.maxResponseBytes = relay.maxResponseBytes;
    this.azureDefaultApiVersion = relay.azureDefaultApiVersion;
    this.agent = new Agent({
      connect: { timeout: relay.connectTimeoutSeconds * 1000 },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: 256,
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  async send(target: UpstreamTarget, endpoint: UpstreamEndpoint, init: UpstreamRequestInit = {}): Promise<UpstreamResponse> {
    return this.dispatch(buildUpstreamRequest(target, endpoint, init, this.azureDefaultApiVersion), init);
  }

  /** The provider's balance query (see buildBalanceRequest); same transport rules as send(). */
  async sendBalance(target: UpstreamTarget, init: Pick<UpstreamRequestInit, 'signal' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'maxResponseBytes'> = {}): Promise<UpstreamResponse> {
    return this.dispatch(buildBalanceRequest(target), init);
  }

  private async dispatch(built: BuiltRequest, init: UpstreamRequestInit): Promise<UpstreamResponse> {
    if (init.signal?.aborted) throw new UpstreamError('aborted', 'the request was aborted');
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(built.url, {
        dispatcher: this.agent,
        method: built.method,
        headers: built.headers,
        body: built.method === 'POST' && init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: init.signal,
        headersTimeout: init.headersTimeoutMs ?? this.headersTimeoutMs,
        bodyTimeout: init.bodyTimeoutMs ?? this.bodyTimeoutMs,
      });
    } catch (error) {
      throw toUpstreamError(error);
    }
    if (response.statusCode >= 300 && response.statusCode < 400) {
      response.body.on('error', () => undefined).destroy();
      throw new UpstreamError('redirect', `upstream answered ${response.statusCode} (redirects are not followed)`);
    }
    const cap = init.maxResponseBytes ?? this.maxResponseBytes;
    const raw = response.body;
    // Destroying an unread body emits an error; readers see it through their own listeners.
    raw.on('error', () => undefined);
    const length = Number(response.headers['content-length']);
    let consumed = false;
    let mapped: Readable | undefined;
    const readText = async (): Promise<string> => {
      if (consumed) throw new Error('the upstream body was already read');
      consumed = true;
      if (Number.isFinite(length) && length > cap) {
        raw.destroy();
        throw new UpstreamError('too_large', `upstream response is larger than ${cap} bytes`);
      }
      try {
        // With a declared length within the cap, undici's own reader (the parser never reads past it).
        return Number.isFinite(length) ? await raw.text() : await readCapped(raw, cap);
      } catch (error) {
        throw toUpstreamError(error);
      }
    };
    return {
      status: response.statusCode,
      headers: response.headers,
      // The error-mapping stream is made only for callers that read the stream themselves: a whole
      // answer read through text()/json() (every non-stream relay call) goes without the extra hop.
      get body() {
        mapped ??= mapErrors(raw);
        return mapped;
      },
      url: built.url,
      text: readText,
      json: async <T>() => {
        const text = await readText();
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new UpstreamError('bad_response', 'upstream response is not valid JSON');
        }
      },
    };
  }
}

async function readCapped(body: Readable, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > cap) {
      body.destroy();
      throw new UpstreamError('too_large', `upstream response is larger than ${cap} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Re-emits the undici body with its errors translated, so a reader sees only UpstreamError kinds. */
function mapErrors(source: Readable): Readable {
  const out = new PassThrough();
  source.on('error', (error) => out.destroy(toUpstreamError(error)));
  out.on('close', () => {
    if (!source.destroyed) source.destroy();
  });
  source.pipe(out);
  return out;
}

export function toUpstreamError(error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const err = error as { code?: string; name?: string; message?: string } | undefined;
  if (error instanceof errors.HeadersTimeoutError) return new UpstreamError('timeout', 'upstream did not answer in time (first byte timeout)');
  if (error instanceof errors.BodyTimeoutError) return new UpstreamError('timeout', 'upstream stopped sending (idle timeout)');
  if (error instanceof errors.ConnectTimeoutError) return new UpstreamError('connect', 'could not connect to upstream (connect timeout)');
  if (error instanceof errors.RequestAbortedError || err?.name === 'AbortError' || err?.code === 'ABORT_ERR') {
    return new UpstreamError('aborted', 'the request was aborted');
  }
  const code = err?.code ?? '';
  if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) {
    return new UpstreamError('connect', `could not reach upstream (${code})`);
  }
  return new UpstreamError('connect', `upstream request failed: ${err?.message ?? String(error)}`);
}
