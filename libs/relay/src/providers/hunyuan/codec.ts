import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, hubAnswer, plainMessages, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Tencent Hunyuan ChatCompletions (Tencent Cloud API reference, hunyuan 2023-09-01): request `{Model,
 * Messages:[{Role, Content}], Stream, Temperature, TopP}`; answer `{Response:{Id, Created, Choices:[{Message:
 * {Role, Content}, FinishReason}], Usage:{PromptTokens, CompletionTokens, TotalTokens}, RequestId}}`, errors
 * `{Response:{Error:{Code, Message}, RequestId}}`; stream events are bare `{Id, Choices:[{Delta:{Content},
 * FinishReason}], Usage}` objects (usage cumulative).
 */

function requestFromHub(hub: Json, model: string): Json {
  const body: Json = {
    Model: model,
    Messages: plainMessages(hub).map((m) => ({ Role: m.role === 'developer' ? 'system' : m.role, Content: m.content })),
  };
  if (hub.stream === true) body.Stream = true;
  if (typeof hub.temperature === 'number') body.Temperature = hub.temperature;
  if (typeof hub.top_p === 'number') body.TopP = hub.top_p;
  return body;
}

const finishOf = (reason: unknown): string | null => (reason === 'length' ? 'length' : reason ? 'stop' : null);

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const answer = native.Response ?? native;
  const choice = Array.isArray(answer.Choices) ? answer.Choices[0] : undefined;
  const usage = usageOf(answer.Usage?.PromptTokens, answer.Usage?.CompletionTokens);
  const text = String(choice?.Message?.Content ?? '');
  return {
    response: hubAnswer(String(answer.Id ?? answer.RequestId ?? ''), model, text, finishOf(choice?.FinishReason) ?? 'stop', usage),
    usage,
  };
}

class HunyuanStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private chunks?: ChunkMaker;

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    const error = data.Response?.Error ?? data.Error;
    if (error) throw new Error(String(error.Message ?? error.Code));
    this.chunks ??= new ChunkMaker(this.model, String(data.Id ?? ''));
    const usage = usageOf(data.Usage?.PromptTokens, data.Usage?.CompletionTokens);
    if (usage) this.last = usage;
    const choice = Array.isArray(data.Choices) ? data.Choices[0] : undefined;
    const out: HubChunk[] = [];
    if (typeof choice?.Delta?.Content === 'string' && choice.Delta.Content) out.push(this.chunks.text(choice.Delta.Content));
    const finish = finishOf(choice?.FinishReason);
    if (finish) out.push(this.chunks.finish(finish));
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const hunyuanCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new HunyuanStreamDecoder(model),
  isErrorBody: (native) => Boolean(native.Response?.Error ?? native.Error),
  errorMessage: (native) => {
    const error = native.Response?.Error ?? native.Error;
    return error ? `${String(error.Message ?? '')} (${String(error.Code ?? '')})` : undefined;
  },
};
