import { PassThrough } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '@gw/core';
import { readJsonBody } from './json-body.js';

function request(headers: Record<string, string>, chunks: string[]): IncomingMessage {
  const stream = new PassThrough();
  Object.assign(stream, { headers });
  setImmediate(() => {
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
  return stream as unknown as IncomingMessage;
}

async function read(headers: Record<string, string>, chunks: string[], limit = 1000) {
  let fellBack = false;
  const fallback = (req: IncomingMessage, _res: ServerResponse, next: (error?: unknown) => void) => {
    fellBack = true;
    Object.assign(req, { body: { parsedBy: 'fallback' } });
    next();
  };
  try {
    const body = await readJsonBody(request(headers, chunks), {} as ServerResponse, limit, fallback);
    return { body, error: undefined, fellBack };
  } catch (error) {
    return { body: undefined, error: error as { type: string; status: number }, fellBack };
  }
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('readJsonBody', () => {
  it('parses plain JSON split over chunks, with a BOM or a UTF-8 charset', async () => {
    expect(await read(JSON_TYPE, ['{"model":', '"gpt-4o","n":1}'])).toEqual({
      body: { model: 'gpt-4o', n: 1 },
      error: undefined,
      fellBack: false,
    });
    expect((await read({ 'content-type': 'application/json; charset=utf-8' }, ['\ufeff{"a":"é"}'])).body).toEqual({ a: 'é' });
    expect((await read(JSON_TYPE, [''])).body).toEqual({});
  });

  it("rejects broken or non-object JSON and oversized bodies with body-parser's errors", async () => {
    expect((await read(JSON_TYPE, ['{"model":'])).error).toMatchObject({ type: 'entity.parse.failed', status: 400 });
    expect((await read(JSON_TYPE, ['"text"'])).error).toMatchObject({ type: 'entity.parse.failed', status: 400 });
    expect((await read(JSON_TYPE, ['x'.repeat(600), 'y'.repeat(600)])).error).toMatchObject({ type: 'entity.too.large', status: 413 });
    expect((await read({ ...JSON_TYPE, 'content-length': '5000' }, ['{}'])).error).toMatchObject({ type: 'entity.too.large', status: 413 });
  });

  it('leaves other charsets and other types to the regular parser, and returns what it parsed', async () => {
    expect(await read({ 'content-type': 'application/json; charset=latin1' }, ['{}'])).toEqual({
      body: { parsedBy: 'fallback' },
      error: undefined,
      fellBack: true,
    });
    expect((await read({ 'content-type': 'application/vnd.api+json' }, ['{}'])).fellBack).toBe(true);
    expect((await read({}, ['{}'])).fellBack).toBe(true);
  });

  it('inflates gzip, deflate and br bodies itself, and refuses an unknown encoding with a 415', async () => {
    const text = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    for (const [encoding, pack] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      const got = await readBinary({ ...JSON_TYPE, 'content-encoding': encoding }, pack(Buffer.from(text)));
      expect(got.body, encoding).toEqual(JSON.parse(text));
      expect(got.fellBack).toBe(false);
    }
    expect((await readBinary({ ...JSON_TYPE, 'content-encoding': 'zstd' }, Buffer.from('{}'))).error).toMatchObject({ status: 415 });
    expect((await readBinary({ ...JSON_TYPE, 'content-encoding': 'gzip' }, Buffer.from('not gzip'))).error).toMatchObject({ status: 400 });
  });

  it('stops inflating a bomb at the body limit and at the inflation ratio (413)', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    // A 1 MB limit: stopped by the limit.
    expect((await readBinary({ ...JSON_TYPE, 'content-encoding': 'gzip' }, bomb, 1024 * 1024)).error).toMatchObject({
      type: 'entity.too.large',
      status: 413,
    });
    // A limit far above the inflated size: stopped by the ratio, after a few MB at most.
    expect((await readBinary({ ...JSON_TYPE, 'content-encoding': 'gzip' }, bomb, 1024 * 1024 * 1024)).error).toMatchObject({
      type: 'entity.too.large',
      status: 413,
    });
  });

  it('refuses JSON nested deeper than the limit with a 400, whatever the strings hold', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect((await read(JSON_TYPE, [deep(MAX_JSON_DEPTH)], 10_000)).body).toBeInstanceOf(Array);
    expect((await read(JSON_TYPE, [deep(MAX_JSON_DEPTH + 1)], 10_000)).error).toMatchObject({ type: 'entity.too.deep', status: 400 });
    expect((await read(JSON_TYPE, [deep(5000)], 100_000)).error).toMatchObject({ type: 'entity.too.deep', status: 400 });
    const brackets = JSON.stringify({ text: '[{'.repeat(1000), quote: 'a\\"[[[' });
    expect((await read(JSON_TYPE, [brackets], 100_000)).body).toEqual(JSON.parse(brackets));
  });
});

async function readBinary(headers: Record<string, string>, bytes: Buffer, limit = 1000) {
  const stream = new PassThrough();
  Object.assign(stream, { headers });
  setImmediate(() => stream.end(bytes));
  try {
    const body = await readJsonBody(stream as unknown as IncomingMessage, {} as ServerResponse, limit, () => {
      throw new Error('no fallback expected');
    });
    return { body, error: undefined, fellBack: false };
  } catch (error) {
    return { body: undefined, error: error as { type: string; status: number }, fellBack: false };
  }
}
