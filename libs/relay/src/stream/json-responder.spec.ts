import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { relayJson } from './json-responder.js';

function fakeRes() {
  const res = {
    status: 0,
    body: '',
    writeHead(status: number) {
      res.status = status;
    },
    end(body: string) {
      res.body = body;
    },
  };
  return res;
}
const words = (t: string) => t.split(/\s+/).filter(Boolean).length;

describe('relayJson', () => {
  it('passes the answer through untouched when it carries usage', () => {
    const res = fakeRes();
    const text = '{"choices":[{"message":{"content":"a b"}}],"usage":{"prompt_tokens":4,"completion_tokens":2}}';
    expect(relayJson(text, res as unknown as ServerResponse, 9, words)).toEqual({
      usage: { promptTokens: 4, completionTokens: 2, cachedTokens: 0 },
      local: false,
    });
    expect(res.body).toBe(text);
  });

  it('estimates missing usage and writes it into the answer', () => {
    const res = fakeRes();
    expect(relayJson('{"choices":[{"message":{"content":"a b c"}}]}', res as unknown as ServerResponse, 9, words)).toMatchObject({
      usage: { promptTokens: 9, completionTokens: 3 },
      local: true,
    });
    expect(JSON.parse(res.body).usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
  });

  it('writes nothing for an error object sent with status 200', () => {
    const res = fakeRes();
    expect(relayJson('{"error":{"message":"quota exceeded"}}', res as unknown as ServerResponse, 9, words)).toEqual({
      errorText: '{"error":{"message":"quota exceeded"}}',
    });
    expect(res.status).toBe(0);
  });
});
