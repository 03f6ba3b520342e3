import { describe, expect, it } from 'vitest';
import { builtInModelList, builtInModelsByType, CHANNEL_TYPES, channelTypeInfo } from './channel-types.js';

/** Spec 000 §3 (channel types by numeric id) and spec 001 §9 (type specifics). */
const SPEC_TYPES: Record<number, RegExp> = {
  1: /OpenAI/,
  2: /Midjourney/,
  3: /Azure/,
  4: /Ollama/,
  5: /Midjourney Proxy Plus/,
  8: /Custom/,
  11: /PaLM/,
  14: /Claude/,
  15: /Baidu/,
  46: /Baidu/,
  16: /Zhipu/,
  26: /Zhipu/,
  17: /Ali|Qwen/,
  18: /iFlytek/,
  19: /360/,
  20: /OpenRouter/,
  21: /AI Proxy/,
  22: /FastGPT/,
  23: /Tencent/,
  24: /Gemini/,
  25: /Moonshot/,
  31: /01\.AI/,
  33: /AWS Claude/,
  34: /Cohere/,
  35: /MiniMax/,
  36: /Suno/,
  37: /Dify/,
  38: /Jina/,
  39: /Cloudflare/,
  40: /SiliconCloud/,
  41: /Vertex/,
  42: /Mistral/,
  43: /DeepSeek/,
  44: /M3E/,
  45: /Volcengine|Doubao/,
  47: /Xinference/,
  48: /xAI/,
};

describe('channel type registry', () => {
  it('has every type id of spec 000 §3 with its name', () => {
    for (const [id, name] of Object.entries(SPEC_TYPES)) expect(channelTypeInfo(Number(id))?.name, `type ${id}`).toMatch(name);
    expect(new Set(CHANNEL_TYPES.map((t) => t.id)).size).toBe(CHANNEL_TYPES.length);
    expect(channelTypeInfo(9999)).toBeUndefined();
  });

  it('describes the key and other formats of spec 001 §9', () => {
    expect(channelTypeInfo(18)).toMatchObject({ keyHelp: 'APPID|APISecret|APIKey', otherDefault: 'v2.1' });
    expect(channelTypeInfo(33)?.keyHelp).toBe('Ak|Sk|Region');
    expect(channelTypeInfo(41)).toMatchObject({
      keyHelp: expect.stringMatching(/service-account JSON/),
      otherHelp: 'region',
      otherDefault: 'us-central1',
    });
    expect(channelTypeInfo(22)?.keyHelp).toBe('APIKey-AppId');
    expect(channelTypeInfo(21)?.otherHelp).toMatch(/knowledge base ID/);
    expect(channelTypeInfo(39)?.otherHelp).toMatch(/account ID/);
    expect(channelTypeInfo(8)?.otherHelp).toMatch(/full request URL/);
    expect(channelTypeInfo(2)?.models).toContain('mj_imagine');
    expect(channelTypeInfo(5)?.models).toContain('mj_imagine');
    expect(channelTypeInfo(36)?.models).toEqual(['suno_music', 'suno_lyrics']);
  });

  it('gives hosted providers a default https base URL and built-in models', () => {
    // Types whose base URL is the admin's own deployment or a full URL have none.
    const noDefault = new Set([2, 3, 5, 8, 18, 33, 36, 41, 47]);
    const noModels = new Set([8, 21, 22, 37, 49]);
    for (const type of CHANNEL_TYPES) {
      if (noDefault.has(type.id)) expect(type.baseUrl, `type ${type.id}`).toBe('');
      else expect(type.baseUrl, `type ${type.id}`).toMatch(/^https?:\/\/[^/]+/);
      if (!noModels.has(type.id)) expect(type.models.length, `type ${type.id}`).toBeGreaterThan(0);
    }
  });

  it('serves GET /api/models (per type) and GET /api/channel/models (each model once)', () => {
    const byType = builtInModelsByType();
    for (const id of Object.keys(SPEC_TYPES)) expect(byType[id], `type ${id}`).toEqual([...channelTypeInfo(Number(id))!.models]);
    const list = builtInModelList();
    expect(new Set(list.map((m) => m.id)).size).toBe(list.length);
    expect(list.find((m) => m.id === 'claude-sonnet-4-20250514')).toEqual({
      id: 'claude-sonnet-4-20250514',
      object: 'model',
      owned_by: 'Anthropic Claude',
    });
  });

  it('marks the providers that have a balance API (new-api channel-billing.go)', () => {
    const withBalance = Object.fromEntries(CHANNEL_TYPES.filter((t) => t.balance).map((t) => [t.id, t.balance]));
    expect(withBalance).toEqual({
      1: 'openai',
      12: 'credit_grants_remaining',
      13: 'credit_grants_available',
      20: 'openrouter',
      25: 'moonshot',
      40: 'siliconflow',
      43: 'deepseek',
    });
  });
});
