import { Injectable } from '@nestjs/common';
import { BusinessError } from '@gw/core';
import { ChannelType } from '@gw/contracts';
import { type BuiltRequest, buildProviderRequest, UpstreamClient, type UpstreamResponse, type UpstreamTarget } from '@gw/upstream';
import { redactKey } from './redact.js';
import { toRelayChannel } from './relay-channel.js';
import { ChannelTestService } from './channel-test.service.js';

/** A pull downloads gigabytes: its answer may take this long to start (new-api allows 30 minutes too). */
const PULL_TIMEOUT_MS = 30 * 60_000;
const SHORT_TIMEOUT_MS = 30_000;

/** One progress line of Ollama's `/api/pull` stream. */
export interface OllamaPullProgress {
  status?: string;
  digest?: string;
  total?: number;
  completed?: number;
  error?: string;
}

/**
 * The channel page's Ollama model management (new-api `/api/channel/ollama/*`): pull, delete and the server
 * version, on the channel's own base URL and key, through the one upstream client (no redirects, bounded
 * timeouts). Only Ollama channels (type 4) are accepted.
 */
@Injectable()
export class ChannelOllamaService {
  constructor(
    private readonly tests: ChannelTestService,
    private readonly upstream: UpstreamClient,
  ) {}

  async pull(channelId: number, model: string): Promise<string> {
    const target = await this.target(channelId);
    const answer = await this.call(target, 'POST', '/api/pull', { model, name: model, stream: false }, PULL_TIMEOUT_MS);
    const parsed = await this.json<OllamaPullProgress>(answer, target, 'pull model');
    if (parsed.error) throw new BusinessError(`Failed to pull model: ${redactKey(parsed.error, target.key)}`);
    return `Model ${model} pulled successfully`;
  }

  /** Starts a streamed pull: the caller reads Ollama's progress lines from `lines`. */
  async pullStream(channelId: number, model: string): Promise<{ lines: AsyncIterable<OllamaPullProgress>; abort(): void }> {
    const target = await this.target(channelId);
    const answer = await this.call(target, 'POST', '/api/pull', { model, name: model, stream: true }, PULL_TIMEOUT_MS);
    if (answer.status !== 200) await this.json(answer, target, 'pull model');
    const body = answer.body;
    return { lines: ndjson(body, target.key), abort: () => body.destroy() };
  }

  async delete(channelId: number, model: string): Promise<string> {
    const target = await this.target(channelId);
    const answer = await this.call(target, 'DELETE', '/api/delete', { model, name: model }, SHORT_TIMEOUT_MS);
    await this.json(answer, target, 'delete model', true);
    return `Model ${model} deleted successfully`;
  }

  async version(channelId: number): Promise<string> {
    const target = await this.target(channelId);
    const answer = await this.call(target, 'GET', '/api/version', undefined, SHORT_TIMEOUT_MS);
    const parsed = await this.json<{ version?: unknown }>(answer, target, 'get Ollama version');
    if (typeof parsed.version !== 'string') throw new BusinessError('Failed to get Ollama version: unexpected answer');
    return parsed.version;
  }

  private async target(channelId: number): Promise<UpstreamTarget> {
    const row = await this.tests.load(channelId);
    if (row.type !== ChannelType.Ollama) throw new BusinessError('This operation is only supported for Ollama channels');
    return toRelayChannel(row).upstream;
  }

  private async call(target: UpstreamTarget, method: BuiltRequest['method'], path: string, body: unknown, timeoutMs: number) {
    const auth: Record<string, string> = target.key ? { authorization: `Bearer ${target.key}` } : {};
    let built: BuiltRequest;
    try {
      built = { ...buildProviderRequest(target, path, auth, false), method };
      return await this.upstream.sendBuilt(built, {
        body,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
        maxResponseBytes: 1024 * 1024,
      });
    } catch (error) {
      throw new BusinessError(`Ollama request failed: ${redactKey((error as Error).message, target.key)}`);
    }
  }

  /** The JSON answer, or a business error with Ollama's own `{error}` message. */
  private async json<T>(answer: UpstreamResponse, target: UpstreamTarget, what: string, allowEmpty = false): Promise<T> {
    const text = await answer.text().catch(() => '');
    let parsed: { error?: unknown } | undefined;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (answer.status !== 200) {
      const reason = typeof parsed?.error === 'string' ? parsed.error : `upstream status ${answer.status}`;
      throw new BusinessError(`Failed to ${what}: ${redactKey(reason, target.key)}`);
    }
    if (parsed === undefined || (!text && !allowEmpty)) throw new BusinessError(`Failed to ${what}: the answer is not JSON`);
    return parsed as T;
  }
}

/** Ollama's newline-delimited progress objects, one by one (unparseable lines are skipped). */
async function* ndjson(body: AsyncIterable<Buffer>, key: string): AsyncIterable<OllamaPullProgress> {
  let tail = '';
  const parse = (line: string): OllamaPullProgress | undefined => {
    try {
      const value = JSON.parse(line);
      if (typeof value !== 'object' || value === null) return undefined;
      return typeof value.error === 'string' ? { error: redactKey(value.error, key) } : value;
    } catch {
      return undefined;
    }
  };
  for await (const chunk of body) {
    const lines = (tail + chunk.toString('utf8')).split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      const progress = line.trim() ? parse(line) : undefined;
      if (progress) yield progress;
    }
  }
  const last = tail.trim() ? parse(tail) : undefined;
  if (last) yield last;
}
