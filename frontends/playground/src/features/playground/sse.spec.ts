import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamError, streamChat, type ChatRequest } from './sse';

// The real kit pulls in Semi and the DOM; the stream reader only needs the login headers.
vi.mock('@console/kit', () => ({ apiHeaders: () => ({ 'New-Api-User': '1' }) }));

const REQUEST: ChatRequest = { model: 'gpt-4o-mini', group: '', temperature: 0, max_tokens: 0, messages: [{ role: 'user', content: 'hi' }] };

/** A fetch answering with the given SSE text, split into the given pieces to exercise line buffering. */
function answer(pieces: string[], init: ResponseInit = { status: 200, headers: { 'Content-Type': 'text/event-stream' } }) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
      controller.close();
    },
  });
  vi.stubGlobal('fetch', vi.fn(async () => new Response(body, init)));
}

async function run() {
  const deltas: string[] = [];
  let parseErrors = 0;
  await streamChat(REQUEST, { onDelta: (text) => deltas.push(text), onParseError: () => (parseErrors += 1) }, new AbortController().signal);
  return { deltas, parseErrors };
}

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('streamChat', () => {
  it('joins deltas split across network reads and stops at [DONE]', async () => {
    const text = `${chunk('Hel')}${chunk('lo')}data: [DONE]\n\n${chunk('after done')}`;
    answer([text.slice(0, 17), text.slice(17, 40), text.slice(40)]);
    expect(await run()).toEqual({ deltas: ['Hel', 'lo'], parseErrors: 0 });
  });

  it('reports an unparsable data line (shown as 聊天数据解析失败) and keeps reading the stream', async () => {
    answer([`${chunk('a')}data: {not json\n\n${chunk('b')}data: [DONE]\n\n`]);
    expect(await run()).toEqual({ deltas: ['a', 'b'], parseErrors: 1 });
  });

  it('rejects with the error object the gateway sends inside the stream', async () => {
    answer([`${chunk('partial')}data: ${JSON.stringify({ error: { message: 'upstream broke' } })}\n\n`]);
    await expect(run()).rejects.toEqual(new StreamError('upstream broke'));
  });

  it('rejects a failed HTTP answer with its OpenAI error message', async () => {
    answer([JSON.stringify({ error: { message: 'model not found' } })], { status: 404 });
    await expect(run()).rejects.toThrow('model not found');
  });
});
