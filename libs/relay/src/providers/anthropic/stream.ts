import type { Usage } from '../../stream/usage.js';
import { parseJsonObject } from '../sse-events.js';
import type { EncodeContext, HubChunk, Json, SseEvent, StreamDecoder, StreamEncoder } from '../types.js';
import { anthropicUsage, finishReasonOf, stopReasonOf, toAnthropicUsage, toMessageId } from './response.js';
import { hubChunk, toolKey } from '../hub-chunk.js';
import { completeMessageDeltaUsage } from './message-delta-usage.js';

const MESSAGE_DELTA: ReadonlySet<string> = new Set(['message_delta']);

/**
 * Anthropic's Messages stream ⇄ OpenAI chat chunks. Event sequence per Anthropic's streaming reference:
 * message_start (input usage), content_block_start / content_block_delta (text_delta, thinking_delta,
 * signature_delta, input_json_delta) / content_block_stop per block, ping, message_delta (stop_reason and
 * cumulative output usage), message_stop; `error` events carry {type, message}.
 */

export class AnthropicStreamDecoder implements StreamDecoder {
  private id = '';
  private readonly created = Math.floor(Date.now() / 1000);
  private raw: Json = {};
  /** Anthropic block index → OpenAI tool call index. */
  private readonly toolIndex = new Map<number, number>();

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    switch (data.type ?? event.event) {
      case 'message_start': {
        this.id = String(data.message?.id ?? '');
        Object.assign(this.raw, data.message?.usage ?? {});
        return [this.chunk({ role: 'assistant', content: '' })];
      }
      case 'content_block_start': {
        const block = data.content_block;
        if (block?.type === 'text' && typeof block.text === 'string' && block.text) return [this.chunk({ content: block.text })];
        if (block?.type !== 'tool_use') return [];
        const index = this.toolIndex.size;
        this.toolIndex.set(Number(data.index), index);
        return [
          this.chunk({
            tool_calls: [
              { index, id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: '' } },
            ],
          }),
        ];
      }
      case 'content_block_delta': {
        const delta = data.delta ?? {};
        if (delta.type === 'text_delta') return [this.chunk({ content: String(delta.text ?? '') })];
        if (delta.type === 'thinking_delta') return [this.chunk({ reasoning_content: String(delta.thinking ?? '') })];
        if (delta.type === 'input_json_delta') {
          // Only client tools' blocks: a server tool's input (server_tool_use, web search) is no OpenAI tool call.
          const index = this.toolIndex.get(Number(data.index));
          if (index === undefined) return [];
          return [this.chunk({ tool_calls: [{ index, function: { arguments: String(delta.partial_json ?? '') } }] })];
        }
        return [];
      }
      case 'message_delta': {
        // Usage here is cumulative: it replaces, never adds to, what message_start said. As in new-api, only
        // counts above 0 replace one: proxies (and Bedrock) send input_tokens 0 here, which is no new count.
        for (const [key, value] of Object.entries(data.usage ?? {})) {
          if (value === null || value === undefined) continue;
          if (typeof value === 'number' && !(value > 0)) continue;
          if (typeof value === 'object' && typeof this.raw[key] === 'object' && this.raw[key] !== null) {
            const counts = Object.entries(value as Json).filter(([, n]) => typeof n === 'number' && n > 0);
            this.raw[key] = { ...this.raw[key], ...Object.fromEntries(counts) };
          } else this.raw[key] = value;
        }
        return data.delta?.stop_reason ? [this.chunk({}, finishReasonOf(data.delta.stop_reason))] : [];
      }
      case 'error':
        throw new Error(String(data.error?.message ?? 'upstream stream error'));
      default:
        return [];
    }
  }

  usage(): Usage | undefined {
    return anthropicUsage(this.raw);
  }

  readonly rewrites: ReadonlySet<string> = MESSAGE_DELTA;

  /** Relayed as it came, message_delta still carries the whole usage (new-api; see completeMessageDeltaUsage). */
  rewrite(event: SseEvent): string | undefined {
    const data = parseJsonObject(event.data);
    if (!data || (data.type ?? event.event) !== 'message_delta') return undefined;
    const usage = completeMessageDeltaUsage(data.usage, this.raw);
    return usage ? JSON.stringify({ ...data, usage }) : undefined;
  }

  private chunk(delta: Json, finish: string | null = null): HubChunk {
    return hubChunk(this.id, this.created, this.model, delta, finish);
  }
}

type BlockKind = 'text' | 'thinking' | 'tool_use';

/** Writes hub chunks as Anthropic's event stream, opening and closing content blocks as the kind changes. */
export class AnthropicStreamEncoder implements StreamEncoder {
  private started = false;
  private block: { kind: BlockKind; index: number; tool?: string } | undefined;
  private nextIndex = 0;
  private stop = 'end_turn';
  private id = '';

  constructor(private readonly context: EncodeContext) {}

  encode(chunk: HubChunk): string {
    let out = this.start(chunk);
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice?.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) {
        out += this.open('thinking', { type: 'thinking', thinking: '' });
        out += event('content_block_delta', {
          index: this.block!.index,
          delta: { type: 'thinking_delta', thinking: delta.reasoning_content },
        });
      }
      if (typeof delta.content === 'string' && delta.content) {
        out += this.open('text', { type: 'text', text: '' });
        out += event('content_block_delta', { index: this.block!.index, delta: { type: 'text_delta', text: delta.content } });
      }
      const calls: Json[] = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const [position, call] of calls.entries()) {
        const tool = toolKey(call, position, this.block?.kind === 'tool_use' ? this.block.tool : undefined);
        if (this.block?.kind !== 'tool_use' || this.block.tool !== tool) {
          out += this.open(
            'tool_use',
            { type: 'tool_use', id: String(call?.id ?? `toolu_${this.nextIndex}`), name: String(call?.function?.name ?? ''), input: {} },
            tool,
          );
        }
        const args = call?.function?.arguments;
        if (typeof args === 'string' && args)
          out += event('content_block_delta', { index: this.block!.index, delta: { type: 'input_json_delta', partial_json: args } });
      }
      if (choice?.finish_reason) this.stop = stopReasonOf(choice.finish_reason);
    }
    return out;
  }

  end(usage: Usage): string {
    let out = this.start({});
    out += this.close();
    out += event('message_delta', { delta: { stop_reason: this.stop, stop_sequence: null }, usage: toAnthropicUsage(usage) });
    out += event('message_stop', {});
    return out;
  }

  private start(chunk: HubChunk): string {
    if (this.started) return '';
    this.started = true;
    this.id = toMessageId(chunk.id);
    const usage = { input_tokens: this.context.promptTokens, output_tokens: 0 };
    const message = {
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    return event('message_start', { message });
  }

  private open(kind: BlockKind, contentBlock: Json, tool?: string): string {
    if (this.block?.kind === kind && kind !== 'tool_use') return '';
    const out = this.close();
    this.block = { kind, index: this.nextIndex++, tool };
    return out + event('content_block_start', { index: this.block.index, content_block: contentBlock });
  }

  private close(): string {
    if (!this.block) return '';
    const out = event('content_block_stop', { index: this.block.index });
    this.block = undefined;
    return out;
  }
}

function event(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}
