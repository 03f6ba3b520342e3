import { readUsage, type Usage } from '../../stream/usage.js';
import { parseJsonObject } from '../sse-events.js';
import { responsesToolCalls } from './responses-tools.js';
import type { HubChunk, SseEvent, StreamDecoder } from '../types.js';

/**
 * Watches an OpenAI Responses stream passed through as is. Usage arrives once, inside the final
 * `response.completed` (or `response.incomplete` / `response.failed`) event's response object; text deltas
 * are surfaced as hub chunks only so that a stream without usage can still be counted locally.
 * Event names per OpenAI's "Responses streaming events" reference.
 */
export class ResponsesStreamWatcher implements StreamDecoder {
  private last?: Usage;

  decode(event: SseEvent): HubChunk[] {
    if (event.data === '[DONE]') return [];
    const type = event.event || (event.data.includes('"type"') ? '' : 'unknown');
    if (
      type === 'response.output_text.delta' ||
      event.data.includes('"response.output_text.delta"') ||
      event.data.includes('"response.reasoning_summary_text.delta"')
    ) {
      const data = parseJsonObject(event.data);
      return typeof data?.delta === 'string' ? [{ choices: [{ index: 0, delta: { content: data.delta } }] }] : [];
    }
    if (event.data.includes('"usage"')) {
      const data = parseJsonObject(event.data);
      const usage = readUsage(data?.response?.usage ?? data?.usage);
      const toolCalls = responsesToolCalls(data?.response);
      if (usage) this.last = toolCalls ? { ...usage, toolCalls } : usage;
    }
    return [];
  }

  usage(): Usage | undefined {
    return this.last;
  }
}
