import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import type { TestDbKind } from '../support/databases.js';
import { COMPLETION_RATIOS, RATIOS, startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** One model per channel family, so each test knows which channel type serves it. */
export const CLAUDE = 'fmt-claude';
export const OPENAI = 'fmt-openai';
export const GEMINI = 'fmt-gemini';
/** OpenAI's other routes, on a second OpenAI channel, at ratio 1 and completion ratio 2. */
export const OTHER = {
  responses: 'fmt-resp',
  speech: 'fmt-tts',
  rerank: 'fmt-rerank',
  moderation: 'fmt-mod',
  edit: 'fmt-edit',
  embed: 'fmt-embed',
  whisper: 'fmt-whisper',
} as const;
/** A fixed-price image model: 0.04 × QuotaPerUnit 500000 = 20000 per standard image. */
export const IMAGE = 'dall-e-3';
export const IMAGE_QUOTA = 20000;
const MODEL_RATIO = 2;
const COMPLETION_RATIO = 3;
const CACHE_RATIO = 0.1;
const CREATE_CACHE_RATIO = 1.25;

/** new-api's ratio formula with cache reads and writes at their own ratios (exact here: no rounding ties). */
export function formatQuota(u: { prompt: number; completion: number; cached?: number; created?: number }): number {
  const cached = u.cached ?? 0;
  const created = u.created ?? 0;
  const tokens = u.prompt - cached - created + cached * CACHE_RATIO + created * CREATE_CACHE_RATIO + u.completion * COMPLETION_RATIO;
  return Math.round(tokens * MODEL_RATIO);
}

export interface FormatsFixture extends RelayFixture {
  /** An unlimited token of the fixture's user. */
  apiToken: { id: number; key: string };
  anthropic(options?: { bearer?: boolean }): Anthropic;
  /** The consume row of a request id, once settled. */
  row(requestId: string | null): Promise<any>;
}

/** A relay fixture with a Claude (14), an OpenAI (1) and a Gemini (24) channel on the fake upstream. */
export async function startFormatsFixture(kind: TestDbKind): Promise<FormatsFixture> {
  const f = await startRelayFixture(kind);
  const models = [CLAUDE, OPENAI, GEMINI];
  const others = Object.values(OTHER);
  await f.setOption('ModelRatio', {
    ...RATIOS,
    ...Object.fromEntries(models.map((m) => [m, MODEL_RATIO])),
    ...Object.fromEntries(others.map((m) => [m, 1])),
  });
  await f.setOption('CompletionRatio', {
    ...COMPLETION_RATIOS,
    ...Object.fromEntries(models.map((m) => [m, COMPLETION_RATIO])),
    ...Object.fromEntries(others.map((m) => [m, 2])),
  });
  await f.setOption('ModelPrice', { [IMAGE]: 0.04 });
  await f.channel({ type: 1, models: [...others, IMAGE].join(','), key: 'openai-other-key' });
  await f.setOption('CacheRatio', Object.fromEntries(models.map((m) => [m, CACHE_RATIO])));
  await f.setOption('CreateCacheRatio', Object.fromEntries(models.map((m) => [m, CREATE_CACHE_RATIO])));
  await f.channel({ type: 14, models: CLAUDE, key: 'claude-up-key' });
  await f.channel({ type: 1, models: OPENAI, key: 'openai-up-key' });
  await f.channel({ type: 24, models: GEMINI, key: 'gemini-up-key' });
  const token = await f.token({ unlimited_quota: true });
  return Object.assign(f, {
    apiToken: token,
    anthropic: (options: { bearer?: boolean } = {}) =>
      options.bearer
        ? new Anthropic({ authToken: token.key, apiKey: null, baseURL: f.gw.url, maxRetries: 0 })
        : new Anthropic({ apiKey: token.key, baseURL: f.gw.url, maxRetries: 0 }),
    async row(requestId: string | null) {
      expect(requestId).toBeTruthy();
      return f.settled(requestId);
    },
  });
}

/** The usage columns and cache details a consume row must carry. */
export function expectRow(
  row: any,
  want: {
    model: string;
    prompt: number;
    completion: number;
    quota: number;
    stream: boolean;
    cached?: number;
    created?: number;
    conversion?: string[];
    path: string;
  },
): void {
  expect(row).toMatchObject({
    type: 2,
    modelName: want.model,
    promptTokens: want.prompt,
    completionTokens: want.completion,
    quota: want.quota,
    isStream: want.stream,
  });
  const other = typeof row.other === 'string' ? JSON.parse(row.other) : row.other;
  expect(other.cache_tokens).toBe(want.cached ?? 0);
  expect(other.request_path).toBe(want.path);
  if (want.created) expect(other).toMatchObject({ cache_creation_tokens: want.created, cache_creation_ratio: CREATE_CACHE_RATIO });
  else expect(other.cache_creation_tokens).toBeUndefined();
  if (want.conversion) expect(other.request_conversion).toEqual(want.conversion);
  else expect(other.request_conversion).toBeUndefined();
}
