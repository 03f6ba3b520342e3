import { Injectable } from '@nestjs/common';
import { BusinessError, NotFoundError } from '@gw/core';
import { channelTypeInfo } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { isOpenAiCompatible, UpstreamClient, UpstreamError, type UpstreamResponse, type UpstreamTarget } from '@gw/upstream';
import type { ChannelEntity } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { MESSAGES } from './channel-input.js';
import type { AdaptorProbe } from './channel-probe.js';
import { redactKey } from './redact.js';
import { toRelayChannel, type RelayChannel } from './relay-channel.js';

export interface ChannelTestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
  status?: number;
  /** Why it failed: an upstream status, a transport failure, the response time, or an unsupported type. */
  failure?: 'status' | 'error_body' | 'connect' | 'timeout' | 'slow' | 'unsupported' | 'other';
}

/** Upstream test answers are read with a small cap: a test needs a few hundred bytes. */
const TEST_MAX_BYTES = 1024 * 1024;
const TEST_TIMEOUT_MS = 60_000;

/** Resolves a model mapping chain (`{"a":"b","b":"c"}` → c) with cycle detection. */
export function mapModel(mapping: Record<string, string>, model: string): string {
  const seen = new Set([model]);
  let current = model;
  while (mapping[current] && !seen.has(mapping[current]!)) {
    current = mapping[current]!;
    seen.add(current);
  }
  return current;
}

function errorMessage(text: string, status: number): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return `upstream answered status ${status}`;
}

export function isEmbeddingModel(model: string): boolean {
  return /embed|^bge-|^m3e|^text-similarity/i.test(model);
}

/** Channel tests, balances and upstream model lists: all through the relay's UpstreamClient. */
@Injectable()
export class ChannelTestService {
  private adaptorProbe?: AdaptorProbe;

  constructor(
    private readonly channels: ChannelRepository,
    private readonly upstream: UpstreamClient,
    private readonly options: OptionService,
  ) {}

  /** The relay hands its adaptors over at start-up (it sits above this lib). */
  useAdaptorProbe(probe: AdaptorProbe): void {
    this.adaptorProbe = probe;
  }

  /** True when channels of this type can be tested: OpenAI-compatible ones here, the others by their adaptor. */
  canTest(type: number): boolean {
    return isOpenAiCompatible(type) || (this.adaptorProbe?.canTest(type) ?? false);
  }

  async load(id: number): Promise<ChannelEntity> {
    const row = await this.channels.findById(id);
    if (!row) throw new NotFoundError(MESSAGES.notFound);
    return row;
  }

  /** Sends "hi" (max_tokens 16) and records response_time / test_time. */
  async test(row: ChannelEntity, requestedModel?: string): Promise<ChannelTestResult> {
    const channel = toRelayChannel(row);
    const result = await this.send(channel, requestedModel);
    result.message = redactKey(result.message, row.key);
    await this.channels.update(row.id, { responseTime: Math.round(result.time * 1000), testTime: nowSeconds() });
    return result;
  }

  private async send(channel: RelayChannel, requestedModel?: string): Promise<ChannelTestResult> {
    const model = requestedModel?.trim() || channel.testModel || channel.models[0] || 'gpt-4o-mini';
    const upstreamModel = mapModel(channel.modelMapping, model);
    if (!isOpenAiCompatible(channel.type)) {
      // Claude is tested with a Messages call, Gemini with generateContent...: each type through its own adaptor.
      if (this.adaptorProbe?.canTest(channel.type)) return this.sendThroughAdaptor(this.adaptorProbe, channel, upstreamModel);
      return { success: false, message: `channel type ${channel.type} cannot be tested yet`, time: 0, failure: 'unsupported' };
    }
    // Embedding-only models cannot answer a chat request: test them on the embeddings endpoint.
    const embedding = isEmbeddingModel(model);
    const endpoint = embedding ? 'embeddings' : 'chat';
    let body: Record<string, unknown> = embedding
      ? { model: upstreamModel, input: ['hi'] }
      : { model: upstreamModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: false };
    let target = channel.upstream;
    if (channel.paramOverride && this.adaptorProbe) {
      // The test sends what the relay would: the channel's param override applies (new-api's is_channel_test).
      try {
        const requestPath = `/v1/${embedding ? 'embeddings' : 'chat/completions'}`;
        const applied = this.adaptorProbe.overrideTestBody(channel, { body, model, upstreamModel, requestPath });
        body = applied.body;
        if (applied.headerOverride) target = { ...target, headerOverride: applied.headerOverride };
      } catch (error) {
        return { success: false, message: (error as Error).message, time: 0, failure: 'other' };
      }
    }
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started) / 1000;
    try {
      const res = await this.upstream.send(target, endpoint, {
        body,
        model: upstreamModel,
        headersTimeoutMs: TEST_TIMEOUT_MS,
        bodyTimeoutMs: TEST_TIMEOUT_MS,
        maxResponseBytes: TEST_MAX_BYTES,
      });
      const text = await res.text();
      let errorBody = false;
      try {
        errorBody = Boolean((JSON.parse(text) as { error?: unknown } | null)?.error);
      } catch {
        // judged below
      }
      return this.judge(res.status, text, errorBody, elapsed());
    } catch (error) {
      return this.failure(error, elapsed());
    }
  }

  private async sendThroughAdaptor(probe: AdaptorProbe, channel: RelayChannel, upstreamModel: string): Promise<ChannelTestResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started) / 1000;
    try {
      const answer = await probe.probe(channel, upstreamModel, { timeoutMs: TEST_TIMEOUT_MS, maxBytes: TEST_MAX_BYTES });
      return this.judge(answer.status, answer.text, answer.errorBody, elapsed());
    } catch (error) {
      return this.failure(error, elapsed());
    }
  }

  /** An upstream answer as a test result: its status, an error object in a 200, or a response slower than allowed. */
  private judge(status: number, text: string, errorBody: boolean, time: number): ChannelTestResult {
    if (status !== 200) return { success: false, message: errorMessage(text, status), time, status, failure: 'status' };
    try {
      JSON.parse(text);
    } catch {
      return { success: false, message: 'upstream response is not valid JSON', time, status: 200, failure: 'error_body' };
    }
    if (errorBody) return { success: false, message: errorMessage(text, 200), time, status: 200, failure: 'error_body' };
    const threshold = this.options.get('ChannelDisableThreshold');
    if (threshold > 0 && time > threshold) {
      return { success: false, message: `response time ${time.toFixed(2)}s exceeds the threshold ${threshold}s`, time, failure: 'slow' };
    }
    return { success: true, message: '', time };
  }

  private failure(error: unknown, time: number): ChannelTestResult {
    if (error instanceof UpstreamError) {
      const failure =
        error.kind === 'timeout'
          ? 'timeout'
          : error.kind === 'connect'
            ? 'connect'
            : error.kind === 'unsupported'
              ? 'unsupported'
              : 'other';
      return { success: false, message: error.message, time, failure };
    }
    return { success: false, message: (error as Error).message, time, failure: 'other' };
  }

  async fetchModels(target: UpstreamTarget): Promise<string[]> {
    let body: { data?: { id?: unknown }[] };
    try {
      body = await this.getJson<{ data?: { id?: unknown }[] }>(target, 'models', {});
    } catch (error) {
      throw new BusinessError(`fetch model list failed: ${(error as Error).message}`);
    }
    if (!Array.isArray(body.data)) throw new BusinessError('fetch model list failed: unexpected answer');
    return [...new Set(body.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string' && id.length > 0))];
  }

  targetFor(type: number, baseUrl: string, key: string): UpstreamTarget {
    if (!channelTypeInfo(type)) throw new BusinessError('unknown channel type');
    return { id: 0, type, key, baseUrl: baseUrl.trim().replace(/\/+$/, ''), other: '' };
  }

  /** A GET of the provider's JSON: a model list or a balance (`balance` = the type's balance API). */
  async getJson<T>(
    target: UpstreamTarget,
    endpoint: 'models' | 'billing_subscription' | 'billing_usage' | 'balance',
    query: Record<string, string> = {},
  ): Promise<T> {
    let res: UpstreamResponse;
    const init = { query, headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, maxResponseBytes: 8 * 1024 * 1024 };
    try {
      res = endpoint === 'balance' ? await this.upstream.sendBalance(target, init) : await this.upstream.send(target, endpoint, init);
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'unsupported') throw new BusinessError(error.message);
      throw new BusinessError(`upstream request failed: ${(error as Error).message}`);
    }
    const text = await res.text();
    if (res.status !== 200) throw new BusinessError(redactKey(errorMessage(text, res.status), target.key));
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new BusinessError('upstream response is not valid JSON');
    }
  }
}
