import { apiHeaders } from '@console/kit';

export interface ChatRequest {
  model: string;
  group: string;
  messages: { role: string; content: string }[];
  temperature: number;
  max_tokens: number;
}

export interface StreamHandlers {
  onDelta(text: string): void;
  /** A data line that is not valid JSON: shown to the user, the stream goes on. */
  onParseError(): void;
}

/** Thrown for a failed HTTP answer; carries the upstream's message for the reply bubble. */
export class StreamError extends Error {}

interface StreamChunk {
  choices?: { delta?: { content?: string | null } }[];
  /** The gateway reports a failure after the first byte as an OpenAI error object inside the stream. */
  error?: { message?: string };
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string }; message?: string };
    return body.error?.message ?? body.message ?? text;
  } catch {
    return text || `HTTP ${response.status}`;
  }
}

/**
 * POSTs to the playground route and feeds each `choices[0].delta.content` to onDelta until `[DONE]`.
 * Resolves when the stream ends; rejects with StreamError (HTTP failure) or AbortError (stop button).
 */
export async function streamChat(request: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
  const response = await fetch('/pg/chat/completions', {
    method: 'POST',
    headers: { ...apiHeaders(), 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    credentials: 'same-origin',
    body: JSON.stringify({ ...request, stream: true }),
    signal,
  });
  if (!response.ok || !response.body) throw new StreamError(await errorMessage(response));

  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const lines = buffer.split('\n');
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
        throw new StreamError(chunk.error.message ?? payload);
      }
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) handlers.onDelta(text);
    }
  }
}
