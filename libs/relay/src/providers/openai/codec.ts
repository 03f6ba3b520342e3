import { buildUpstreamRequest } from '@gw/upstream';
import { readUsage, toOpenAiUsage, type Usage } from '../../stream/usage.js';
import { parseJsonObject } from '../sse-events.js';
import type { ChannelAdaptor, EncodeContext, FormatCodec, HubChunk, SseEvent, StreamDecoder, StreamEncoder } from '../types.js';

/** OpenAI models that accept reasoning_effort (o-series, gpt-5 family) and reasoning models of compatible providers. */
const REASONING_MODEL = /^(o\d|gpt-5|gpt-oss)|reason|think|deepseek-r1|qwq|grok-3-mini/i;

/** OpenAI chat is the hub itself: its "conversions" only set the model and the usage. */
export const openAiCodec: FormatCodec = {
  id: 'openai',
  requestToHub: (body) => body,
  responseFromHub: (response, usage) => ({ ...response, usage: toOpenAiUsage(usage) }),
  streamEncoder: (context) => new OpenAiStreamEncoder(context),
  errorBody: (message, type, _status, code) => ({ error: { message, type, param: '', code } }),
  requestFromHub(request, model) {
    const body: Record<string, unknown> = { ...request, model };
    // Usage must come back for billing; new-api forces it the same way (FORCE_STREAM_OPTION).
    if (body.stream === true) body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
    // A converted thinking request (Anthropic thinking, Gemini thinkingConfig) becomes reasoning_effort only for
    // models known to take it: OpenAI answers 400 to reasoning_effort on gpt-4o and the like.
    if (body.reasoning_effort !== undefined && !REASONING_MODEL.test(model)) delete body.reasoning_effort;
    return body;
  },
  responseToHub: (native) => ({ response: native, usage: readUsage(native.usage) }),
  streamDecoder: () => new OpenAiStreamDecoder(),
  isErrorBody: (native) => native.error !== undefined && native.choices === undefined,
};

class OpenAiStreamDecoder implements StreamDecoder {
  private last?: Usage;

  decode(event: SseEvent): HubChunk[] {
    if (event.data === '[DONE]') return [];
    const chunk = parseJsonObject(event.data);
    if (!chunk) return [];
    if (chunk.error && !chunk.choices)
      throw new Error(typeof chunk.error?.message === 'string' ? chunk.error.message : 'upstream stream error');
    const usage = readUsage(chunk.usage);
    if (usage) this.last = usage;
    return Array.isArray(chunk.choices) && chunk.choices.length > 0 ? [chunk] : [];
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

class OpenAiStreamEncoder implements StreamEncoder {
  private id = '';
  private created = 0;

  constructor(private readonly context: EncodeContext) {}

  encode(chunk: HubChunk): string {
    this.id ||= String(chunk.id ?? '');
    this.created ||= Number(chunk.created ?? 0);
    const { usage: _dropped, ...rest } = chunk;
    return `data: ${JSON.stringify({ ...rest, object: 'chat.completion.chunk', model: this.context.model })}\n\n`;
  }

  end(usage: Usage): string {
    if (!this.context.includeUsage) return 'data: [DONE]\n\n';
    const chunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created || Math.floor(Date.now() / 1000),
      model: this.context.model,
      choices: [],
      usage: toOpenAiUsage(usage),
    };
    return `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`;
  }
}

/** Every OpenAI-compatible channel type (OpenAI, Azure, custom URL, DeepSeek, ...): the chat endpoint. */
export const openAiAdaptor: ChannelAdaptor = {
  format: 'openai',
  buildChatRequest: ({ channel, model, stream }) => buildUpstreamRequest(channel.upstream, 'chat', { model, stream }),
};
