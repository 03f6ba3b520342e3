import type { Usage } from '../../stream/usage.js';
import { parseJsonObject } from '../sse-events.js';
import type { EncodeContext, HubChunk, Json, SseEvent, StreamDecoder, StreamEncoder } from '../types.js';
import { finishReasonOf, geminiFinishOf, geminiUsage, parseArgs, partText, toGeminiUsage, toolCallId } from './response.js';
import { hubChunk, toolKey } from '../hub-chunk.js';
import { GroundingTally } from './grounding.js';

/**
 * Gemini's `streamGenerateContent?alt=sse` ⇄ OpenAI chat chunks. Each event is a whole
 * GenerateContentResponse holding the new parts; usageMetadata, when present, is cumulative (the totals
 * so far), so the last one is the answer's usage and it is never summed across chunks.
 */

export class GeminiStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private readonly grounding = new GroundingTally();
  private tools = 0;
  /** The last content sent was a rendered media or code block: the next text starts a line of its own. */
  private afterBlock = false;
  /** Some content text was sent (a block after it starts a line of its own). */
  private sent = false;
  private finished = false;
  private readonly id = `chatcmpl-${Date.now()}`;
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (data.error) throw new Error(String(data.error.message ?? 'upstream stream error'));
    const usage = geminiUsage(data.usageMetadata);
    if (usage) this.last = usage;
    this.grounding.add(data);
    const candidate = Array.isArray(data.candidates) ? data.candidates[0] : undefined;
    const out: HubChunk[] = [];
    for (const part of Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []) {
      if (typeof part !== 'object' || part === null) continue;
      if (typeof part.text === 'string') {
        if (!part.text) continue;
        if (part.thought) out.push(this.chunk({ reasoning_content: part.text }));
        else {
          out.push(this.chunk({ content: this.afterBlock && !part.text.startsWith('\n') ? `\n${part.text}` : part.text }));
          this.afterBlock = false;
          this.sent = true;
        }
      } else if (part.functionCall) {
        const index = this.tools++;
        const name = String(part.functionCall.name ?? '');
        out.push(
          this.chunk({
            tool_calls: [
              { index, id: toolCallId(), type: 'function', function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) } },
            ],
          }),
        );
      } else {
        // Generated images, code and its output: content text, as in the answer that is not streamed.
        const block = partText(part);
        if (block === undefined) continue;
        out.push(this.chunk({ content: this.sent ? `\n${block}` : block }));
        this.afterBlock = true;
        this.sent = true;
      }
    }
    // A refused prompt comes as one event without candidates (promptFeedback.blockReason): as in new-api it adds
    // nothing to the client's stream, which ends as usual with the prompt's usage (no finish reason, no error).
    const finish = finishReasonOf(candidate?.finishReason, this.tools > 0);
    if (finish && !this.finished) {
      this.finished = true;
      out.push(this.chunk({}, finish));
    }
    return out;
  }

  usage(): Usage | undefined {
    return this.grounding.withFacts(this.last);
  }

  private chunk(delta: Json, finish: string | null = null): HubChunk {
    return hubChunk(this.id, this.created, this.model, delta, finish);
  }
}

/** Writes hub chunks as Gemini SSE; tool calls go out whole (Gemini has no partial arguments) with the last chunk. */
export class GeminiStreamEncoder implements StreamEncoder {
  private finish: string | null = null;
  private readonly calls = new Map<string, { name: string; args: string }>();
  private lastCall: string | undefined;

  constructor(private readonly context: EncodeContext) {}

  encode(chunk: HubChunk): string {
    const parts: Json[] = [];
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice?.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content)
        parts.push({ text: delta.reasoning_content, thought: true });
      if (typeof delta.content === 'string' && delta.content) parts.push({ text: delta.content });
      const calls: Json[] = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const [position, call] of calls.entries()) {
        const key = toolKey(call, position, this.lastCall);
        this.lastCall = key;
        const seen = this.calls.get(key) ?? { name: '', args: '' };
        if (typeof call?.function?.name === 'string') seen.name ||= call.function.name;
        if (typeof call?.function?.arguments === 'string') seen.args += call.function.arguments;
        this.calls.set(key, seen);
      }
      if (choice?.finish_reason) this.finish = choice.finish_reason;
    }
    return parts.length ? this.frame(parts) : '';
  }

  end(usage: Usage): string {
    const parts = [...this.calls.values()].map((call) => ({ functionCall: { name: call.name, args: parseArgs(call.args) } }));
    return this.frame(parts, geminiFinishOf(this.finish), usage);
  }

  private frame(parts: Json[], finishReason?: string, usage?: Usage): string {
    const candidate: Json = { content: { role: 'model', parts }, index: 0 };
    if (finishReason) candidate.finishReason = finishReason;
    const body: Json = { candidates: [candidate], modelVersion: this.context.model };
    if (usage) body.usageMetadata = toGeminiUsage(usage);
    return `data: ${JSON.stringify(body)}\r\n\r\n`;
  }
}
