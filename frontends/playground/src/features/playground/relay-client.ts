import { apiHeaders } from '@console/kit';
import { classifyRelayError, networkFailure, type RelayFailure } from './relay-errors';

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** The body of POST /pg/chat/completions (spec 001 §7), as shown in the debug panel. */
export interface ChatRequestBody {
  model: string;
  group: string;
  messages: { role: string; content: string | ContentPart[] }[];
  stream: boolean;
  temperature: number;
  top_p?: number;
  max_tokens?: number;
}

export interface ChatHandlers {
  onDelta(text: string): void;
  /** A reasoning model's thinking (`reasoning_content`, or `reasoning` on some providers), shown apart from the answer. */
  onReasoning?(text: string): void;
  /** A data line that is not valid JSON: shown to the user (聊天数据解析失败), the stream goes on. */
  onParseError(): void;
  /** The answer as it arrived on the wire, for the debug panel. */
  onRaw(text: string): void;
}

/** A reply that failed: at the HTTP level, as an error event inside the stream, or on the network. */
export class RelayRequestError extends Error {
  constructor(readonly failure: RelayFailure) {
    super(failure.detail);
    this.name = 'RelayRequestError';
  }
}

interface MessageText {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

interface StreamChunk {
  choices?: { delta?: MessageText }[];
  /** The gateway reports a failure after the first byte as an OpenAI error object inside the stream. */
  error?: { message?: string };
}

interface CompletionBody {
  choices?: { message?: MessageText }[];
}

function deliver(part: MessageText | undefined, handlers: ChatHandlers): void {
  const thinking = part?.reasoning_content ?? part?.reasoning;
  if (thinking) handlers.onReasoning?.(thinking);
  if (part?.content) handlers.onDelta(part.content);
}

/** Reads `data:` lines until `[DONE]`; a stream that ends without it was cut off, and says so. */
async function readStream(body: NonNullable<Response['body']>, handlers: ChatHandlers): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new RelayRequestError({ kind: 'cutOff', detail: '' });
    handlers.onRaw(value);
    buffer += value;
    const lines = buffer.split(/\r?\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data:')) continue;
      const payload = line.slice(5).trim();
      if (payload === '[DONE]') {
        await reader.cancel();
        return;
      }
      let chunk: StreamChunk;
      try {
        chunk = JSON.parse(payload) as StreamChunk;
      } catch {
        handlers.onParseError();
        continue;
      }
      if (chunk.error) {
        await reader.cancel();
        throw new RelayRequestError(classifyRelayError(undefined, payload));
      }
      deliver(chunk.choices?.[0]?.delta, handlers);
    }
  }
}

/**
 * POSTs to the playground route. Streamed: each `choices[0].delta.content` goes to onDelta until `[DONE]`;
 * not streamed: the whole `choices[0].message.content` at once. Rejects with RelayRequestError, or with an
 * AbortError when the user stops it.
 */
export async function sendChat(body: ChatRequestBody, handlers: ChatHandlers, signal: AbortSignal): Promise<void> {
  let response: Response;
  try {
    response = await fetch('/pg/chat/completions', {
      method: 'POST',
      headers: { ...apiHeaders(), 'Content-Type': 'application/json', Accept: body.stream ? 'text/event-stream' : 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new RelayRequestError(networkFailure((error as Error).message));
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    handlers.onRaw(text);
    throw new RelayRequestError(classifyRelayError(response.status, text));
  }
  if (body.stream && response.headers.get('content-type')?.includes('text/event-stream')) return readStream(response.body, handlers);

  const text = await response.text();
  handlers.onRaw(text);
  let answer: CompletionBody & StreamChunk;
  try {
    answer = JSON.parse(text) as CompletionBody & StreamChunk;
  } catch {
    handlers.onParseError();
    return;
  }
  if (answer.error) throw new RelayRequestError(classifyRelayError(response.status, text));
  deliver(answer.choices?.[0]?.message, handlers);
}
