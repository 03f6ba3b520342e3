import { PassThrough } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
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

  it('leaves compressed bodies, other charsets and other types to the regular parser, and returns what it parsed', async () => {
    expect(await read({ ...JSON_TYPE, 'content-encoding': 'gzip' }, ['...'])).toEqual({
      body: { parsedBy: 'fallback' },
      error: undefined,
      fellBack: true,
    });
    expect((await read({ 'content-type': 'application/json; charset=latin1' }, ['{}'])).fellBack).toBe(true);
    expect((await read({ 'content-type': 'application/vnd.api+json' }, ['{}'])).fellBack).toBe(true);
    expect((await read({}, ['{}'])).fellBack).toBe(true);
  });
});
