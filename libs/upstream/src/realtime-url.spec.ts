import { describe, expect, it } from 'vitest';
import { buildRealtimeRequest } from './upstream-url.js';
import { UpstreamError, type UpstreamTarget } from './upstream.types.js';

const target = (fields: Partial<UpstreamTarget> = {}): UpstreamTarget => ({
  id: 1,
  type: 1,
  key: 'sk-channel',
  baseUrl: 'https://api.openai.com',
  other: '',
  ...fields,
});
const options = { beta: true, azureDefaultVersion: '2025-04-01-preview' };

describe('the Realtime handshake of a channel (new-api GetRequestURL / SetupRequestHeader)', () => {
  it('makes https wss and http ws, with the upstream model, the bearer key and the beta header', () => {
    expect(buildRealtimeRequest(target({ organization: 'org-1' }), 'gpt-4o-realtime-preview', options)).toEqual({
      url: 'wss://api.openai.com/v1/realtime?model=gpt-4o-realtime-preview',
      method: 'GET',
      headers: { authorization: 'Bearer sk-channel', 'openai-organization': 'org-1', 'openai-beta': 'realtime=v1' },
    });
    const plain = buildRealtimeRequest(target({ baseUrl: 'http://127.0.0.1:9000/' }), 'm x', { ...options, beta: false });
    expect(plain.url).toBe('ws://127.0.0.1:9000/v1/realtime?model=m+x');
    expect(plain.headers).toEqual({ authorization: 'Bearer sk-channel' });
  });

  it("uses the type's default base URL and path prefix, and carries the public-only rule", () => {
    const built = buildRealtimeRequest(target({ type: 46, baseUrl: '', publicOnly: true }), 'm', options);
    expect(built.url).toBe('wss://qianfan.baidubce.com/v2/realtime?model=m');
    expect(built.publicOnly).toBe(true);
  });

  it("builds Azure's deployment URL with the channel's api-version and its api-key header", () => {
    const azure = target({ type: 3, baseUrl: 'https://res.openai.azure.com', other: '2024-10-01-preview', createdTime: 1 });
    expect(buildRealtimeRequest(azure, 'gpt-4o-realtime-preview', options)).toEqual({
      url: 'wss://res.openai.azure.com/openai/realtime?deployment=gpt-4o-realtime-preview&api-version=2024-10-01-preview',
      method: 'GET',
      headers: { 'api-key': 'sk-channel' },
    });
    expect(buildRealtimeRequest({ ...azure, other: '' }, 'gpt-4.1', options).url).toContain(
      'deployment=gpt-41&api-version=2025-04-01-preview',
    );
  });

  it('applies the header override, but never to the handshake headers the socket owns', () => {
    const built = buildRealtimeRequest(
      target({ headerOverride: { 'X-Api-Key': '{api_key}', 'Sec-WebSocket-Protocol': 'evil', Upgrade: 'h2c' } }),
      'm',
      options,
    );
    expect(built.headers).toEqual({ authorization: 'Bearer sk-channel', 'openai-beta': 'realtime=v1', 'x-api-key': 'sk-channel' });
  });

  it('refuses channel types without an OpenAI Realtime endpoint', () => {
    for (const type of [8, 39, 14]) expect(() => buildRealtimeRequest(target({ type }), 'm', options)).toThrow(UpstreamError);
  });
});
