import { describe, expect, it } from 'vitest';
import { ResponseParser, ResponseProtocolError } from './response-parser.js';

/** Feeds `wire` in pieces cut at `cuts`; returns what the parser reported. */
function parse(wire: string, cuts: number[] = [], noBody = false) {
  const seen = { status: 0, headers: [] as string[], body: '', ends: 0 };
  const parser = new ResponseParser(
    {
      head: (status, raw) => {
        seen.status = status;
        seen.headers = raw;
      },
      body: (piece) => (seen.body += piece.toString('latin1')),
      end: () => seen.ends++,
    },
    noBody,
  );
  const bytes = Buffer.from(wire, 'latin1');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) parser.feed(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return { seen, parser };
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nX-Twice: a\r\nX-Twice: b\r\n\r\n' +
  'f\r\ndata: {"a":1}\n\n\r\n' +
  'c;ext=1\r\ndata: [DONE]\r\n' +
  '2\r\n\n\n\r\n' +
  '0\r\nX-Trailer: t\r\n\r\n';
const CHUNKED_BODY = 'data: {"a":1}\n\ndata: [DONE]\n\n';

describe('ResponseParser', () => {
  it('reads a chunked answer cut at every byte boundary', () => {
    for (let cut = 0; cut <= CHUNKED.length; cut++) {
      const { seen, parser } = parse(CHUNKED, [cut]);
      expect(seen.status).toBe(200);
      expect(seen.headers).toEqual(['Content-Type', 'text/event-stream', 'Transfer-Encoding', 'chunked', 'X-Twice', 'a', 'X-Twice', 'b']);
      expect(seen.body).toBe(CHUNKED_BODY);
      expect(seen.ends).toBe(1);
      expect(parser.keepAlive).toBe(true);
      expect(parser.extra).toBe(false);
    }
  });

  it('reads a chunked answer fed one byte at a time, with bare LF line ends', () => {
    const wire = CHUNKED.replaceAll('\r\n', '\n');
    const { seen } = parse(
      wire,
      Array.from({ length: wire.length }, (_, i) => i),
    );
    expect(seen.body).toBe(CHUNKED_BODY);
    expect(seen.ends).toBe(1);
  });

  it('reads only the first `length` bytes of what it is fed (a shared read buffer holds older bytes past them)', () => {
    const pieces: Buffer[] = [];
    const views: boolean[] = [];
    let ends = 0;
    const body = (piece: Buffer) => {
      views.push(piece.buffer === readBuffer.buffer);
      pieces.push(Buffer.from(piece));
    };
    const parser = new ResponseParser({ head: () => undefined, body, end: () => ends++ });
    const readBuffer = Buffer.alloc(512, '#');
    const feed = (wire: string) => parser.feed(readBuffer, readBuffer.write(wire, 'latin1'));
    feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
    feed('lo\r\n');
    feed('0\r\n\r\n');
    expect(Buffer.concat(pieces).toString()).toBe('hello');
    expect(views).toEqual([true, true]);
    expect(ends).toBe(1);
    expect(parser.extra).toBe(false);
  });

  it('hands a read of one whole chunk over as a view, not a copy', () => {
    const pieces: Buffer[] = [];
    const parser = new ResponseParser({ head: () => undefined, body: (piece) => pieces.push(piece), end: () => undefined });
    parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'));
    const read = Buffer.from('5\r\nhello\r\n');
    parser.feed(read);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.buffer).toBe(read.buffer);
    expect(pieces[0]!.toString()).toBe('hello');
  });

  it('reads Content-Length and close-delimited bodies, skips interim answers, and knows when a connection can be reused', () => {
    const fixed = parse(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 5\r\nKeep-Alive: timeout=5\r\n\r\nhello',
      [10, 30],
    );
    expect(fixed.seen).toMatchObject({ status: 404, body: 'hello', ends: 1 });
    expect(fixed.parser.keepAlive).toBe(true);
    expect(fixed.parser.keepAliveHintMs).toBe(5000);

    const untilClose = parse('HTTP/1.1 200 OK\r\n\r\npart one, ');
    untilClose.parser.feed(Buffer.from('part two'));
    expect(untilClose.seen.ends).toBe(0);
    untilClose.parser.close();
    expect(untilClose.seen).toMatchObject({ body: 'part one, part two', ends: 1 });
    expect(untilClose.parser.keepAlive).toBe(false);

    expect(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').parser.keepAlive).toBe(false);
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').parser.keepAlive).toBe(false);
    expect(parse('HTTP/1.1 204 No Content\r\n\r\n').seen.ends).toBe(1);
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n', [], true).seen.ends).toBe(1);
    // Bytes after the answer: the connection is out of step.
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1').parser.extra).toBe(true);
  });

  it('refuses what would desynchronise the connection', () => {
    const bad = [
      'HTTP/2 200\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n',
    ];
    for (const wire of bad) expect(() => parse(wire), wire).toThrow(ResponseProtocolError);
    const cut = parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    expect(() => cut.parser.close()).toThrow(ResponseProtocolError);
    expect(() => parse(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70 * 1024)}`)).toThrow('too large');
  });
});
