import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ChannelTestService,
  type AdaptorProbe,
  isEmbeddingModel,
  type ProbeAnswer,
  type ProbeLimits,
  type RelayChannel,
  type TestOverride,
  type TestRequest,
} from '@gw/channel';
import { OptionService, type OptionKey } from '@gw/option';
import { UpstreamClient } from '@gw/upstream';
import { adaptorRequest } from '../providers/adaptor-request.js';
import { adaptorOf, providerCodecOf } from '../providers/registry.js';
import { parseJsonObject, SseEventReader } from '../providers/sse-events.js';
import { aggregateStream } from '../providers/stream-aggregate.js';
import type { AdaptorCall, EmbeddingAdaptor, ProviderSettings } from '../providers/types.js';
import { applyParamOverride, overrideFailure } from './param-override/index.js';

/** The test question, as new-api asks it: a short chat the provider answers in a few tokens. */
const TEST_REQUEST = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: false };

/** True when a provider's 200 answer holds embeddings (else the test fails with the answer as its message). */
function readsAsEmbeddings(embeddings: EmbeddingAdaptor, text: string, model: string): boolean {
  const parsed = parseJsonObject(text);
  if (!parsed) return false;
  try {
    embeddings.responseToOpenAi(parsed, model);
    return true;
  } catch {
    return false;
  }
}

/**
 * Channel tests (console "test", the periodic health check) of channel types with their own wire format: the
 * test request goes through the type's adaptor and codec, so a Claude channel is tested with a Messages call,
 * a Gemini one with generateContent, a Bedrock one with a signed InvokeModel, exactly as the relay calls them.
 * OpenAI-compatible types keep their test in the channel lib (chat, or embeddings for embedding models).
 */
@Injectable()
export class RelayChannelProbe implements AdaptorProbe, OnModuleInit {
  private readonly settings: ProviderSettings;

  constructor(
    private readonly tests: ChannelTestService,
    private readonly upstream: UpstreamClient,
    options: OptionService,
  ) {
    this.settings = { get: <T>(key: string) => options.get(key as OptionKey) as T };
  }

  onModuleInit(): void {
    this.tests.useAdaptorProbe(this);
  }

  canTest(type: number): boolean {
    const adaptor = adaptorOf(type);
    // Providers without chat (Replicate images) have nothing cheap to test with.
    return adaptor !== undefined && adaptor.format !== 'openai' && adaptor.servesChat !== false;
  }

  overrideTestBody(channel: RelayChannel, test: TestRequest): TestOverride {
    try {
      return applyParamOverride(test.body, channel.paramOverride, channel.upstream.headerOverride ?? null, {
        upstreamModel: test.upstreamModel,
        originalModel: test.model,
        requestPath: test.requestPath,
        retryIndex: 0,
        extra: { is_channel_test: true },
      });
    } catch (error) {
      const failure = overrideFailure(error, () => false);
      if (!failure) throw error;
      throw new Error(failure.error.message);
    }
  }

  async probe(channel: RelayChannel, upstreamModel: string, limits: ProbeLimits): Promise<ProbeAnswer> {
    const typeAdaptor = adaptorOf(channel.type);
    if (!typeAdaptor) throw new Error(`channel type ${channel.type} cannot be tested yet`);
    const adaptor = typeAdaptor.forModel?.(upstreamModel, channel) ?? typeAdaptor;
    const codec = providerCodecOf(adaptor);
    // An embedding model answers no chat: it is tested on the provider's embeddings API, as OpenAI channels test it.
    const embeddings = isEmbeddingModel(upstreamModel) ? adaptor.embeddings : undefined;
    const call: AdaptorCall = {
      channel,
      model: upstreamModel,
      stream: !embeddings && adaptor.streamOnly === true,
      settings: this.settings,
    };
    let body = embeddings
      ? embeddings.requestFromOpenAi({ model: upstreamModel, input: ['hi'] }, upstreamModel)
      : codec.requestFromHub({ ...TEST_REQUEST, model: upstreamModel }, upstreamModel, this.settings);
    if (channel.paramOverride) {
      const path = embeddings ? '/v1/embeddings' : '/v1/chat/completions';
      const applied = this.overrideTestBody(channel, { body, model: upstreamModel, upstreamModel, requestPath: path });
      body = applied.body;
      if (applied.headerOverride) call.channel = { ...channel, upstream: { ...channel.upstream, headerOverride: applied.headerOverride } };
    }
    if (!embeddings && adaptor.finishBody) body = adaptor.finishBody(body, call, true);
    const { built, rawBody } = await adaptorRequest(adaptor, call, body, embeddings?.buildRequest(call));
    const init = { body, rawBody, headersTimeoutMs: limits.timeoutMs, bodyTimeoutMs: limits.timeoutMs, maxResponseBytes: limits.maxBytes };
    // Providers whose call is more than one HTTP request (Baidu's token, Spark's WebSocket) send it themselves.
    const res = adaptor.send ? await adaptor.send(built, init, { call, http: this.upstream }) : await this.upstream.sendBuilt(built, init);
    const text = await res.text();
    if (embeddings)
      return { status: res.status, text, errorBody: res.status === 200 && !readsAsEmbeddings(embeddings, text, upstreamModel) };
    if (adaptor.streamOnly && res.status === 200 && String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
      // A stream-only provider (Coze) answers the test as a stream: read it whole, as the relay does.
      try {
        const reader = new SseEventReader();
        const events = [...reader.push(text), ...reader.end()];
        return {
          status: 200,
          text: JSON.stringify(aggregateStream(codec.streamDecoder(upstreamModel), events, upstreamModel).response),
          errorBody: false,
        };
      } catch (error) {
        return { status: 200, text: JSON.stringify({ error: { message: (error as Error).message } }), errorBody: true };
      }
    }
    const parsed = res.status === 200 ? parseJsonObject(text) : undefined;
    return { status: res.status, text, errorBody: parsed !== undefined && codec.isErrorBody(parsed) };
  }
}
