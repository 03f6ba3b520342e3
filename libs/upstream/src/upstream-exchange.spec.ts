import { describe, expect, it } from 'vitest';
import { UpstreamExchange } from './upstream-exchange.js';
import type { BodySink } from './upstream.types.js';

/** An exchange driven the way Http1Dispatcher drives it, past its head. */
async function streamedExchange() {
  const exchange = new UpstreamExchange('http://upstream.test/v1/chat/completions', 1024 * 1024, undefined, true);
  exchange.onConnect(() => undefined);
  exchange.onHeaders(200, ['content-type', 'text/event-stream'], () => undefined);
  const response = await exchange.response;
  return {
    exchange,
    response,
    get chunks() {
      return response.chunks!;
    },
  };
}

/** A view of a read buffer that the next read overwrites, as the HTTP/1.1 client lends its pieces. */
function lentRead(exchange: UpstreamExchange, text: string): void {
  const readBuffer = Buffer.from(text);
  exchange.onData(readBuffer, true);
  exchange.onReadEnd();
  readBuffer.fill('#');
}

describe('UpstreamExchange with lent reads', () => {
  it('tells its sink that each read ends, and hands a sink with readEnd the lent bytes themselves', async () => {
    const { exchange, chunks } = await streamedExchange();
    expect(chunks.readEnds).toBe(true);
    const atReadEnd: string[] = [];
    let read = '';
    chunks.start({
      data: (chunk) => (read += chunk.toString()),
      readEnd: () => {
        atReadEnd.push(read);
        read = '';
      },
      end: () => undefined,
      error: () => undefined,
    });
    lentRead(exchange, 'data: one\n\n');
    lentRead(exchange, 'data: two\n\n');
    expect(atReadEnd).toEqual(['data: one\n\n', 'data: two\n\n']);
  });

  it('copies lent bytes it holds while the sink is paused, and hands them over with a readEnd on resume', async () => {
    const { exchange, chunks } = await streamedExchange();
    const got: Buffer[] = [];
    let readEnds = 0;
    const sink: BodySink = { data: (chunk) => got.push(chunk), readEnd: () => readEnds++, end: () => undefined, error: () => undefined };
    chunks.start(sink);
    chunks.pause();
    lentRead(exchange, 'data: held\n\n');
    expect(got).toEqual([]);
    chunks.resume();
    expect(got.map(String)).toEqual(['data: held\n\n']);
    expect(readEnds).toBe(2);
  });

  it('copies lent bytes for a sink without readEnd, and for a body read as a stream', async () => {
    const kept: Buffer[] = [];
    const first = await streamedExchange();
    first.chunks.start({ data: (chunk) => kept.push(chunk), end: () => undefined, error: () => undefined });
    lentRead(first.exchange, 'data: kept\n\n');
    expect(kept.map(String)).toEqual(['data: kept\n\n']);

    const second = await streamedExchange();
    const streamed: Buffer[] = [];
    second.exchange.onData(Buffer.from('ignored'), false);
    const body = second.response.body;
    body.on('data', (chunk: Buffer) => streamed.push(chunk));
    lentRead(second.exchange, 'data: streamed\n\n');
    second.exchange.onComplete();
    await new Promise((resolve) => body.once('end', resolve));
    expect(streamed.map(String).join('')).toBe('ignoreddata: streamed\n\n');
  });
});
