import { readUsage, type Usage } from '../../stream/usage.js';
import { contentText, providerOnly, remoteImageUrls } from '../provider-only.js';
import { parseJsonObject } from '../sse-events.js';
import type { FormatCodec, HubChunk, HubRequest, Json, SseEvent, StreamDecoder } from '../types.js';
import { hubChunk } from '../hub-chunk.js';

/** Dify needs a user id per call; a client that sends none (OpenAI `user`) is this one. */
export const DIFY_DEFAULT_USER = 'new-api';

/**
 * OpenAI chat → Dify chat app (`/v1/chat-messages`), as new-api sends it: Dify apps keep their own prompt, so
 * the whole conversation becomes one `query` with role headings (SYSTEM / USER / ASSISTANT); remote images become
 * `files` by URL; `response_mode` is blocking or streaming; `user` is the client's OpenAI `user` when it gave one.
 */
function hubToDify(request: HubRequest): Record<string, unknown> {
  let query = '';
  const files: Json[] = [];
  for (const message of Array.isArray(request.messages) ? request.messages : []) {
    const role =
      message?.role === 'system' || message?.role === 'developer' ? 'SYSTEM' : message?.role === 'assistant' ? 'ASSISTANT' : 'USER';
    const text = contentText(message?.content);
    if (text) query += `${role}: \n${text}\n`;
    if (role === 'USER')
      for (const url of remoteImageUrls(message?.content)) files.push({ type: 'image', transfer_mode: 'remote_url', url });
  }
  return {
    inputs: {},
    query,
    response_mode: request.stream === true ? 'streaming' : 'blocking',
    user: typeof request.user === 'string' && request.user ? request.user : DIFY_DEFAULT_USER,
    auto_generate_name: false,
    files,
  };
}

/** Dify's `metadata.usage` (prompt_tokens, completion_tokens, total_tokens, prices) in the gateway's terms. */
function difyUsage(native: Json): Usage | undefined {
  return readUsage(native?.metadata?.usage);
}

function difyResponseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const usage = difyUsage(native);
  const response = {
    id: String(native.message_id ?? native.id ?? native.conversation_id ?? ''),
    object: 'chat.completion',
    created: Number(native.created_at) || Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: typeof native.answer === 'string' ? native.answer : '' }, finish_reason: 'stop' },
    ],
  };
  return { response, usage };
}

/** What Dify's chat app sends around a thinking model's reasoning; new-api relays them as think tags. */
const THINKING_OPEN =
  '<details style="color:gray;background-color: #f8f8f8;padding: 8px;border-radius: 4px;" open> <summary> Thinking... </summary>\n';
const THINKING_CLOSE = '</details>';

/**
 * The reasoning line new-api's DIFY_DEBUG shows for a workflow or node event (`Workflow: <id>`, `Node: <type>`,
 * with the status once it finished), or undefined for other events.
 */
export function difyDebugLine(event: string, data: Json): string | undefined {
  const detail = data?.data ?? {};
  if (event.startsWith('workflow_')) {
    const line = `Workflow: ${String(detail.workflow_id ?? '')}`;
    return `${event === 'workflow_finished' ? `${line} ${String(detail.status ?? '')}` : line}\n`;
  }
  if (event.startsWith('node_')) {
    const line = `Node: ${String(detail.node_type ?? '')}`;
    return `${event === 'node_finished' ? `${line} ${String(detail.status ?? '')}` : line}\n`;
  }
  return undefined;
}

/**
 * Dify's streaming events: one JSON object per `data:` line, its kind in `event`. `message` / `agent_message`
 * carry answer text (a thinking model's HTML reasoning wrapper becomes `<think>` tags, as new-api writes them);
 * `message_end` carries the usage; `error` ends the stream. With DIFY_DEBUG (new-api's default) each workflow
 * and node event is a reasoning line, and each such line adds one completion token, as new-api counts them;
 * agent_thought, tts and ping events are bookkeeping.
 */
class DifyStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private id = '';
  private created = 0;
  private debugLines = 0;

  constructor(
    private readonly model: string,
    private readonly debug: boolean,
  ) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    this.id ||= String(data.message_id ?? data.task_id ?? '');
    this.created ||= Number(data.created_at) || Math.floor(Date.now() / 1000);
    const chunk = (delta: Json, finish: string | null = null): HubChunk => hubChunk(this.id, this.created, this.model, delta, finish);
    const kind = typeof data.event === 'string' ? data.event : '';
    switch (kind) {
      case 'message':
      case 'agent_message': {
        if (typeof data.answer !== 'string' || !data.answer) return [];
        const answer = data.answer === THINKING_OPEN ? '<think>' : data.answer === THINKING_CLOSE ? '</think>' : data.answer;
        return [chunk({ content: answer })];
      }
      case 'message_end':
        this.last = difyUsage(data) ?? this.last;
        return [chunk({}, 'stop')];
      case 'error':
        throw new Error(typeof data.message === 'string' ? data.message : 'Dify stream error');
      default: {
        const line = this.debug ? difyDebugLine(kind, data) : undefined;
        if (line === undefined) return [];
        this.debugLines++;
        return [chunk({ reasoning_content: line })];
      }
    }
  }

  usage(): Usage | undefined {
    if (!this.last) return undefined;
    return { ...this.last, completionTokens: this.last.completionTokens + this.debugLines };
  }
}

export const difyCodec: FormatCodec = {
  id: 'dify',
  ...providerOnly('Dify'),
  requestFromHub: hubToDify,
  responseToHub: difyResponseToHub,
  streamDecoder: (model, settings) => new DifyStreamDecoder(model, settings?.difyDebug ?? true),
  // Dify's errors: {code, message, status}.
  isErrorBody: (native) => native.answer === undefined && (native.code !== undefined || native.message !== undefined),
};
