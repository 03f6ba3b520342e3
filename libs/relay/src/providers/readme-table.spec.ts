import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHANNEL_TYPES, channelTypeInfo } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { adaptorOf } from './registry.js';

/** README.md "Supported channel types": operators read it to know what they can connect, so it must not drift. */
const readme = readFileSync(fileURLToPath(new URL('../../../../README.md', import.meta.url)), 'utf8');
const section = readme.slice(readme.indexOf('## Supported channel types'), readme.indexOf('## Layout'));

const rows = section
  .split('\n')
  .filter((line) => /^\| \d+ \|/.test(line))
  .map((line) => {
    const [id, name, relaysAs, baseUrl] = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    return { id: Number(id), name, relaysAs: relaysAs!, baseUrl: baseUrl! };
  });
const notRelayed = [...(section.match(/Known but not relayed yet[\s\S]*?\n\n/)?.[0] ?? '').matchAll(/\b(\d+) (?=[A-Za-z])/g)].map((m) =>
  Number(m[1]),
);
const WIRE: Record<string, RegExp> = {
  openai: /^OpenAI(?! video)/,
  anthropic: /^Anthropic/,
  gemini: /^Gemini/,
  ollama: /^Ollama native/,
  palm: /^PaLM/,
  baidu: /^Baidu ERNIE/,
  zhipu_v3: /^Zhipu v3/,
  dashscope: /^DashScope/,
  ai_proxy_library: /^AI Proxy knowledge base/,
  hunyuan: /^Hunyuan/,
  spark: /^Spark WebSocket/,
  dify: /^Dify/,
  cohere: /^Cohere/,
  coze: /^Coze/,
  replicate: /^Replicate/,
};

describe('README supported channel types', () => {
  it('lists exactly the types the relay can call, each with the wire format of its adaptor', () => {
    const chatRows = rows.filter((row) => Object.values(WIRE).some((wire) => wire.test(row.relaysAs)));
    const relayable = CHANNEL_TYPES.filter((type) => adaptorOf(type.id)).map((type) => type.id);
    expect(chatRows.map((row) => row.id).sort((a, b) => a - b)).toEqual(relayable);
    for (const row of chatRows) expect(row.relaysAs, `type ${row.id}`).toMatch(WIRE[adaptorOf(row.id)!.format]!);
  });

  it('gives each listed type its default base URL, and lists every other known type as not relayed', () => {
    for (const row of rows) {
      const info = channelTypeInfo(row.id);
      expect(info, `type ${row.id}`).toBeDefined();
      if (row.baseUrl.startsWith('`')) expect(row.baseUrl, `type ${row.id}`).toBe(`\`${info!.baseUrl}\``);
      else expect(info!.baseUrl, `type ${row.id} has a default base URL`).toBe('');
    }
    const listed = new Set([...rows.map((row) => row.id), ...notRelayed]);
    expect(CHANNEL_TYPES.filter((type) => !listed.has(type.id)).map((type) => type.id)).toEqual([]);
    for (const id of notRelayed) expect(adaptorOf(id), `type ${id} relays`).toBeUndefined();
  });
});
