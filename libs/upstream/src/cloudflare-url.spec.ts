import { describe, expect, it } from 'vitest';
import { ACCOUNT_ID, CHAT_PATH, EMBED_PATH, TOKEN } from '../../../test/fixtures/providers/cloudflare/index.js';
import { buildUpstreamRequest } from './upstream-url.js';
import { UpstreamError } from './upstream.types.js';

const target = (other: string, baseUrl = '') => ({ id: 1, type: 39, key: TOKEN, baseUrl, other });

describe('Cloudflare Workers AI URLs (type 39)', () => {
  it('puts the account of `other` in the OpenAI-compatible path, with the API token as bearer (fixture)', () => {
    const chat = buildUpstreamRequest(target(ACCOUNT_ID), 'chat', { model: '@cf/meta/llama-3.1-8b-instruct', stream: true });
    expect(chat).toEqual({
      url: `https://api.cloudflare.com${CHAT_PATH}`,
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    });
    expect(buildUpstreamRequest(target(` ${ACCOUNT_ID} `, 'http://127.0.0.1:8787'), 'embeddings').url).toBe(
      `http://127.0.0.1:8787${EMBED_PATH}`,
    );
  });

  it('refuses a channel without a usable account id, and endpoints Workers AI has no OpenAI form of', () => {
    expect(() => buildUpstreamRequest(target(''), 'chat')).toThrow(UpstreamError);
    expect(() => buildUpstreamRequest(target('../evil'), 'chat')).toThrow(/account ID/);
    expect(() => buildUpstreamRequest(target(ACCOUNT_ID), 'images_generations')).toThrow(/no OpenAI images_generations/);
  });
});
