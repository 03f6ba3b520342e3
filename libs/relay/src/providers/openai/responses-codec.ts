import type { Usage } from '../../stream/usage.js';
import type { EncodeContext, FormatCodec, HubChunk, HubRequest, HubResponse, Json, StreamEncoder } from '../types.js';

/**
 * OpenAI Responses ⇄ the hub (OpenAI chat), for channels without a Responses API (Claude, Gemini). Inbound
 * only: providers that speak Responses are OpenAI channels, reached by pass-through. Shapes: OpenAI's
 * "Responses" reference (input items message / function_call / function_call_output; output items message
 * with output_text, function_call; usage input_tokens, output_tokens) and its streaming events reference.
 */

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function contentToHub(content: unknown): unknown {
  if (typeof content === 'string') return content;
  const parts: Json[] = [];
  for (const part of Array.isArray(content) ? content.filter(isObject) : []) {
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string')
      parts.push({ type: 'text', text: part.text });
    else if (part.type === 'input_image') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (typeof url === 'string') parts.push({ type: 'image_url', image_url: { url } });
    }
  }
  return parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('\n') : parts;
}

export function responsesToHub(body: Json, model: string, stream: boolean): HubRequest {
  const messages: Json[] = [];
  if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
  const items =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input.filter(isObject) : [];
  for (const item of items) {
    if (item.type === 'function_call') {
      const call = {
        id: String(item.call_id ?? item.id ?? ''),
        type: 'function',
        function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '{}') },
      };
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) last.tool_calls.push(call);
      else messages.push({ role: 'assistant', content: '', tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({
        role: 'tool',
        tool_call_id: String(item.call_id ?? ''),
        content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? ''),
      });
    } else if (typeof item.role === 'string') {
      messages.push({ role: item.role === 'developer' ? 'system' : item.role, content: contentToHub(item.content) });
    }
  }
  const hub: HubRequest = { model, messages, stream };
  if (stream) hub.stream_options = { include_usage: true };
  if (typeof body.max_output_tokens === 'number') hub.max_tokens = body.max_output_tokens;
  for (const field of ['temperature', 'top_p'] as const) if (typeof body[field] === 'number') hub[field] = body[field];
  if (typeof body.reasoning?.effort === 'string') hub.reasoning_effort = body.reasoning.effort;
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(
    (t: unknown) => isObject(t) && t.type === 'function' && typeof t.name === 'string',
  );
  if (tools.length)
    hub.tools = tools.map((t: Json) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters ?? { type: 'object', properties: {} } },
    }));
  const choice = body.tool_choice;
  if (choice === 'auto' || choice === 'required' || choice === 'none') hub.tool_choice = choice;
  else if (isObject(choice) && typeof choice.name === 'string') hub.tool_choice = { type: 'function', function: { name: choice.name } };
  return hub;
}

export function toResponsesUsage(usage: Usage): Json {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function responseId(id: unknown): string {
  const text = typeof id === 'string' && id ? id.replace(/^(chatcmpl-|msg_)/, '') : String(Date.now());
  return `resp_${text}`;
}

function envelope(id: string, model: string, status: string, output: Json[], usage: Usage | null, finish?: string): Json {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    error: null,
    incomplete_details: finish === 'length' ? { reason: 'max_output_tokens' } : null,
    usage: usage ? toResponsesUsage(usage) : null,
  };
}

export function hubToResponses(hub: HubResponse, usage: Usage, model: string): Json {
  const id = responseId(hub.id);
  const choice = Array.isArray(hub.choices) ? hub.choices[0] : undefined;
  const message = choice?.message ?? {};
  const output: Json[] = [];
  if (typeof message.content === 'string' && message.content) {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: message.content, annotations: [] }],
    });
  }
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    output.push({
      type: 'function_call',
      id: `fc_${call?.id ?? ''}`,
      call_id: String(call?.id ?? ''),
      name: String(call?.function?.name ?? ''),
      arguments: String(call?.function?.arguments ?? '{}'),
      status: 'completed',
    });
  }
  const finish = choice?.finish_reason;
  return envelope(id, model, finish === 'length' ? 'incomplete' : 'completed', output, usage, finish);
}

/** Hub chunks as Responses streaming events: output items open as they start and close at the end. */
class ResponsesStreamEncoder implements StreamEncoder {
  private seq = 0;
  private id = '';
  private started = false;
  private finish?: string;
  private text?: { index: number; text: string };
  private readonly calls = new Map<number, { index: number; id: string; name: string; args: string }>();
  private nextIndex = 0;

  constructor(private readonly context: EncodeContext) {}

  encode(chunk: HubChunk): string {
    let out = this.start(chunk);
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice?.delta ?? {};
      if (typeof delta.content === 'string' && delta.content) {
        if (!this.text) {
          this.text = { index: this.nextIndex++, text: '' };
          out += this.event('response.output_item.added', {
            output_index: this.text.index,
            item: { type: 'message', id: this.messageId(), status: 'in_progress', role: 'assistant', content: [] },
          });
          out += this.event('response.content_part.added', {
            item_id: this.messageId(),
            output_index: this.text.index,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
        }
        this.text.text += delta.content;
        out += this.event('response.output_text.delta', {
          item_id: this.messageId(),
          output_index: this.text.index,
          content_index: 0,
          delta: delta.content,
        });
      }
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const key = Number(call?.index ?? 0);
        let seen = this.calls.get(key);
        if (!seen) {
          seen = { index: this.nextIndex++, id: String(call?.id ?? `call_${key}`), name: String(call?.function?.name ?? ''), args: '' };
          this.calls.set(key, seen);
          out += this.event('response.output_item.added', {
            output_index: seen.index,
            item: { type: 'function_call', id: `fc_${seen.id}`, call_id: seen.id, name: seen.name, arguments: '', status: 'in_progress' },
          });
        }
        const args = call?.function?.arguments;
        if (typeof args === 'string' && args) {
          seen.args += args;
          out += this.event('response.function_call_arguments.delta', { item_id: `fc_${seen.id}`, output_index: seen.index, delta: args });
        }
      }
      if (choice?.finish_reason) this.finish = choice.finish_reason;
    }
    return out;
  }

  end(usage: Usage): string {
    let out = this.start({});
    const output: Json[] = [];
    if (this.text) {
      const item = {
        type: 'message',
        id: this.messageId(),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: this.text.text, annotations: [] }],
      };
      out += this.event('response.output_text.done', {
        item_id: item.id,
        output_index: this.text.index,
        content_index: 0,
        text: this.text.text,
      });
      out += this.event('response.content_part.done', {
        item_id: item.id,
        output_index: this.text.index,
        content_index: 0,
        part: item.content[0],
      });
      out += this.event('response.output_item.done', { output_index: this.text.index, item });
      output[this.text.index] = item;
    }
    for (const call of this.calls.values()) {
      const item = {
        type: 'function_call',
        id: `fc_${call.id}`,
        call_id: call.id,
        name: call.name,
        arguments: call.args,
        status: 'completed',
      };
      out += this.event('response.function_call_arguments.done', { item_id: item.id, output_index: call.index, arguments: call.args });
      out += this.event('response.output_item.done', { output_index: call.index, item });
      output[call.index] = item;
    }
    const status = this.finish === 'length' ? 'incomplete' : 'completed';
    out += this.event(`response.${status}`, {
      response: envelope(this.id, this.context.model, status, output.filter(Boolean), usage, this.finish),
    });
    return out;
  }

  private start(chunk: HubChunk): string {
    if (this.started) return '';
    this.started = true;
    this.id = responseId(chunk.id);
    const response = envelope(this.id, this.context.model, 'in_progress', [], null);
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  private messageId(): string {
    return `msg_${this.id}`;
  }

  private event(type: string, data: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`;
  }
}

const noChannelSide = (): never => {
  throw new Error('no channel speaks the Responses format through a conversion');
};

export const responsesCodec: FormatCodec = {
  id: 'responses',
  requestToHub: responsesToHub,
  responseFromHub: hubToResponses,
  streamEncoder: (context) => new ResponsesStreamEncoder(context),
  errorBody: (message, type, _status, code) => ({ error: { message, type, param: '', code } }),
  requestFromHub: noChannelSide,
  responseToHub: noChannelSide,
  streamDecoder: noChannelSide,
  isErrorBody: (native) => native.error !== undefined && native.error !== null && native.output === undefined,
};
