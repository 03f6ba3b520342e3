import { describe, expect, it } from 'vitest';
import { chat2linkTemplate, isLinkTemplate, isWebLink, parseChatLinks, resolveChatLink } from './chat-links';

const decodePayload = (url: string, prefix: string) =>
  JSON.parse(Buffer.from(decodeURIComponent(url.slice(prefix.length)), 'base64').toString('utf8'));

describe('parseChatLinks', () => {
  it('keeps each entry at its index (the /chat/:id) and skips malformed ones', () => {
    const raw = [{ Lobe: 'https://lobe.test/?k={key}' }, 'junk', { Empty: '' }, { Cherry: 'cherrystudio://x?data={cherryConfig}' }];
    expect(parseChatLinks(raw)).toEqual([
      { index: 0, name: 'Lobe', template: 'https://lobe.test/?k={key}' },
      { index: 3, name: 'Cherry', template: 'cherrystudio://x?data={cherryConfig}' },
    ]);
  });

  it('reads the JSON string kept in localStorage and answers [] for anything unreadable', () => {
    expect(parseChatLinks('[{"A":"https://a.test"}]')).toEqual([{ index: 0, name: 'A', template: 'https://a.test' }]);
    expect(parseChatLinks('{not json')).toEqual([]);
    expect(parseChatLinks({ A: 'https://a.test' })).toEqual([]);
    expect(parseChatLinks(undefined)).toEqual([]);
  });
});

describe('resolveChatLink', () => {
  const values = { key: 'abc123', address: 'https://gw.example.com/' };

  it('fills the key with its sk- prefix and the URL-encoded address', () => {
    const url = resolveChatLink('https://chat.test/#/?settings={"key":"{key}","url":"{address}"}', values);
    expect(url).toBe('https://chat.test/#/?settings={"key":"sk-abc123","url":"https%3A%2F%2Fgw.example.com"}');
    expect(resolveChatLink('opencat://team/join?domain={address}&token={key}', { ...values, key: 'sk-abc123' })).toBe(
      'opencat://team/join?domain=https%3A%2F%2Fgw.example.com&token=sk-abc123',
    );
  });

  it('builds the Cherry Studio, AionUI and DeepChat import payloads', () => {
    const cherry = 'cherrystudio://providers/api-keys?v=1&data=';
    expect(decodePayload(resolveChatLink(`${cherry}{cherryConfig}`, values), cherry)).toEqual({
      id: 'new-api',
      baseUrl: 'https://gw.example.com',
      apiKey: 'sk-abc123',
    });
    const aionui = 'aionui://provider/add?v=1&data=';
    expect(decodePayload(resolveChatLink(`${aionui}{aionuiConfig}`, values), aionui)).toEqual({
      platform: 'new-api',
      baseUrl: 'https://gw.example.com',
      apiKey: 'sk-abc123',
    });
    const deepchat = 'deepchat://provider/install?v=1&data=';
    expect(
      decodePayload(resolveChatLink(`${deepchat}{deepchatConfig}`, { ...values, address: 'https://网关.cn' }), deepchat),
    ).toMatchObject({
      baseUrl: 'https://网关.cn',
    });
  });

  it('tells web pages from app schemes and bare words', () => {
    expect(isWebLink('HTTPS://a.test')).toBe(true);
    expect(isWebLink('cherrystudio://x')).toBe(false);
    expect(isLinkTemplate('cherrystudio://x')).toBe(true);
    expect(isLinkTemplate('fluentread')).toBe(false);
  });
});

describe('chat2linkTemplate', () => {
  it('prefers the legacy chat_link, then the first web client, then any client', () => {
    const chats = [{ Cherry: 'cherrystudio://x?data={cherryConfig}' }, { Bare: 'fluentread' }, { Lobe: 'https://lobe.test/?k={key}' }];
    expect(chat2linkTemplate({ chat_link: 'https://next.test/', chats })).toBe(
      'https://next.test/#/?settings={"key":"{key}","url":"{address}"}',
    );
    expect(chat2linkTemplate({ chat_link: '', chats })).toBe('https://lobe.test/?k={key}');
    expect(chat2linkTemplate({ chats: chats.slice(0, 2) })).toBe('cherrystudio://x?data={cherryConfig}');
    expect(chat2linkTemplate({ chats: [{ Bare: 'fluentread' }] })).toBeNull();
    expect(chat2linkTemplate({})).toBeNull();
  });
});
