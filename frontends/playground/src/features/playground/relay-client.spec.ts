import { afterEach, describe, expect, it, vi } from 'vitest';
import { RelayRequestError, sendChat, type ChatRequestBody } from './relay-client';

// The real kit pulls in Semi and the DOM; the relay client only needs the login headers.
vi.mock('@console/kit', () => ({ apiHeaders: () => ({ 'New-Api-User': '1' }) }));

const REQUEST: ChatRequestBody = {
  model: 'gpt-4o-mini',
  group: '',
  temperature: 0,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};
const SSE = { status: 200, headers: { 'Content-Type': 'text/event-stream' } };

/** A fetch answering with the given text, split into the given pieces to exercise line buffering. */
function answer(pieces: string[], init: ResponseInit = SSE) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
      controller.close();
    },
  });
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => new Response(body, init));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

async function run(request: ChatRequestBody = REQUEST) {
  const deltas: string[] = [];
  let parseErrors = 0;
  let raw = '';
  await sendChat(
    request,
    { onDelta: (text) => deltas.push(text), onParseError: () => (parseErrors += 1), onRaw: (text) => (raw += text) },
    new AbortController().signal,
  );
  return { deltas, parseErrors, raw };
}

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('sendChat', () => {
  it('joins deltas split across network reads, keeps the raw stream and stops at [DONE]', async () => {
    const text = `${chunk('Hel')}${chunk('lo')}data: [DONE]\n\n${chunk('after done')}`;
    const fetch = answer([text.slice(0, 17), text.slice(17, 40), text.slice(40)]);
    const result = await run();
    expect(result).toMatchObject({ deltas: ['Hel', 'lo'], parseErrors: 0 });
    expect(result.raw).toBe(text);
    expect(JSON.parse(String(fetch.mock.calls[0]![1].body))).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('reads CRLF framing and a [DONE] without a space', async () => {
    answer([`data: ${JSON.stringify({ choices: [{ delta: { content: 'a' } }] })}\r\n\r\ndata:[DONE]\r\n\r\n`]);
    expect((await run()).deltas).toEqual(['a']);
  });

  it('rejects a stream that ends without [DONE] as cut off, after handing over what arrived', async () => {
    answer([chunk('half')]);
    const deltas: string[] = [];
    const error = await sendChat(
      REQUEST,
      { onDelta: (text) => deltas.push(text), onParseError: () => undefined, onRaw: () => undefined },
      new AbortController().signal,
    ).catch((caught: unknown) => caught);
    expect(deltas).toEqual(['half']);
    expect((error as RelayRequestError).failure.kind).toBe('cutOff');
  });

  it('reports an unparsable data line and keeps reading the stream', async () => {
    answer([`${chunk('a')}data: {not json\n\n${chunk('b')}data: [DONE]\n\n`]);
    expect(await run()).toMatchObject({ deltas: ['a', 'b'], parseErrors: 1 });
  });

  it('rejects with the error event the gateway sends inside the stream', async () => {
    answer([`${chunk('partial')}data: ${JSON.stringify({ error: { message: 'upstream broke' } })}\n\n`]);
    const error = await run().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RelayRequestError);
    expect((error as RelayRequestError).failure).toEqual({ kind: 'upstream', detail: 'upstream broke', status: undefined });
  });

  it('rejects a failed HTTP answer with its status, kind and OpenAI error message', async () => {
    answer([JSON.stringify({ error: { message: 'insufficient user quota', code: 'insufficient_user_quota' } })], { status: 403 });
    const error = (await run().catch((caught: unknown) => caught)) as RelayRequestError;
    expect(error.failure).toEqual({ kind: 'quota', detail: 'insufficient user quota', status: 403 });
  });

  it('turns a network failure into a network error, and lets a stop (abort) through as is', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    expect(((await run().catch((caught: unknown) => caught)) as RelayRequestError).failure.kind).toBe('network');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new DOMException('aborted', 'AbortError'))),
    );
    expect(((await run().catch((caught: unknown) => caught)) as Error).name).toBe('AbortError');
  });

  it("hands a reasoning model's thinking apart from its answer", async () => {
    const think = (reasoning_content: string) => `data: ${JSON.stringify({ choices: [{ delta: { reasoning_content } }] })}\n\n`;
    answer([`${think('Let me ')}${think('think.')}${chunk('Answer')}data: [DONE]\n\n`]);
    const thinking: string[] = [];
    const deltas: string[] = [];
    await sendChat(
      REQUEST,
      {
        onDelta: (text) => deltas.push(text),
        onReasoning: (text) => thinking.push(text),
        onParseError: () => undefined,
        onRaw: () => undefined,
      },
      new AbortController().signal,
    );
    expect(thinking).toEqual(['Let me ', 'think.']);
    expect(deltas).toEqual(['Answer']);
  });

  it('reads a non-streamed answer whole', async () => {
    const body = { choices: [{ message: { role: 'assistant', content: 'whole answer' } }] };
    answer([JSON.stringify(body)], { status: 200, headers: { 'Content-Type': 'application/json' } });
    expect(await run({ ...REQUEST, stream: false })).toMatchObject({ deltas: ['whole answer'], raw: JSON.stringify(body) });
  });
});
