import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY, startFakeUpstream, type FakeUpstream } from './index.js';

/** The fake provider is what every relay test trusts; its scripted faults must do what they say. */
describe('fake upstream provider', () => {
  let up: FakeUpstream;
  beforeAll(async () => {
    up = await startFakeUpstream();
  });
  afterAll(() => up.close());
  beforeEach(() => up.reset());

  const chat = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${up.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers chat completions as JSON with usage, and records the request', async () => {
    const res = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer sk-a' });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.choices[0].message.content).toBe(DEFAULT_REPLY);
    expect(body.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 });
    expect(up.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini' } });
  });

  it('streams SSE chunks, with a usage chunk only when asked', async () => {
    const withUsage = await (await chat({ model: 'm', stream: true, stream_options: { include_usage: true } })).text();
    const without = await (await chat({ model: 'm', stream: true })).text();
    const text = (sse: string) =>
      sse
        .split('\n\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)))
        .map((c) => c.choices[0]?.delta?.content ?? '')
        .join('');
    expect(text(withUsage)).toBe(DEFAULT_REPLY);
    expect(withUsage).toContain('"usage"');
    expect(without).not.toContain('"usage"');
    expect(withUsage.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('follows scripted rules: status for a key, a limited number of times, then normal answers', async () => {
    up.script({ key: 'sk-bad', status: 429, times: 1, retryAfter: 3 });
    const first = await chat({ model: 'm' }, { authorization: 'Bearer sk-bad' });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect((await first.json()).error.message).toMatch(/429/);
    expect((await chat({ model: 'm' }, { authorization: 'Bearer sk-bad' })).status).toBe(200);
    expect((await chat({ model: 'm' }, { authorization: 'Bearer sk-other' })).status).toBe(200);
  });

  it('can omit usage, set usage and reply text', async () => {
    up.script({ model: 'nousage', omitUsage: true });
    up.script({ model: 'custom', usage: { prompt_tokens: 7, completion_tokens: 3, cached_tokens: 2 }, reply: 'ok' });
    expect((await (await chat({ model: 'nousage' })).json()).usage).toBeUndefined();
    const custom = await (await chat({ model: 'custom' })).json();
    expect(custom.choices[0].message.content).toBe('ok');
    expect(custom.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it('resets a stream mid-way', async () => {
    up.script({ resetAfterChunks: 1 });
    const res = await chat({ model: 'm', stream: true });
    await expect(res.text()).rejects.toThrow();
  });

  it('serves embeddings, models, Anthropic messages and Gemini', async () => {
    const post = (path: string, body: object) =>
      fetch(up.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) =>
        r.json(),
      );
    expect((await post('/v1/embeddings', { model: 'e', input: ['a', 'b'] })).data).toHaveLength(2);
    expect((await (await fetch(`${up.url}/v1/models`)).json()).data.map((m: { id: string }) => m.id)).toContain('gpt-4o-mini');
    expect((await post('/v1/messages', { model: 'claude', messages: [] })).content[0].text).toBe(DEFAULT_REPLY);
    expect((await post('/v1beta/models/gemini-pro:generateContent', {})).candidates[0].content.parts[0].text).toBe(DEFAULT_REPLY);
  });

  it('redirects when scripted, without following', async () => {
    up.script({ redirectTo: 'http://169.254.169.254/' });
    const res = await fetch(`${up.url}/v1/models`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://169.254.169.254/');
  });
});
