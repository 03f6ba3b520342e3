import { BusinessError, NotFoundError } from '@gw/core';
import { type ChannelInput, paramOverrideProblem } from '@gw/contracts';

/** Parsing and validation of channel form fields, with the console's messages (spec 001 §5, §8). */
export const MESSAGES = {
  nameAndKey: 'please fill channel name and key',
  models: 'select at least one model',
  modelMapping: 'model mapping must be valid JSON',
  duplicateModels: 'some models already exist',
  priority: 'priority must be an integer',
  weight: 'weight must be non-negative integer',
  notFound: 'channel not found, refresh',
  noChanges: 'no changes',
  tagRequired: 'tag is required',
  selectChannels: 'please select at least one channel',
} as const;

const MAX_INT = 2_147_483_647;

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d{1,10}\s*$/.test(value)) return Number(value);
  return undefined;
}

export function parsePriority(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = toInteger(value);
  if (n === undefined || n < -999 || n > MAX_INT) throw new BusinessError(MESSAGES.priority);
  return n;
}

export function parseWeight(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = toInteger(value);
  if (n === undefined || n < 0 || n > MAX_INT) throw new BusinessError(MESSAGES.weight);
  return n;
}

export function parseInteger(value: unknown, message: string, min = 0, max = MAX_INT): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = toInteger(value);
  if (n === undefined || n < min || n > max) throw new BusinessError(message);
  return n;
}

/** A JSON-object text field: '' clears it; anything else must be a JSON object. */
export function parseJsonField(value: unknown, message: string): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value).trim();
  if (text === '') return '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  } catch {
    throw new BusinessError(message);
  }
  return text;
}

/** A param override: a JSON object whose operations form (new-api's), when used, is checked mode by mode. */
export function parseParamOverride(value: unknown): string | undefined {
  const text = parseJsonField(value, 'param override must be valid JSON');
  const problem = text ? paramOverrideProblem(text) : undefined;
  if (problem) throw new BusinessError(`param override: ${problem}`);
  return text;
}

/** "a, b,c" or ["a","b"] → ['a','b','c']; duplicates are refused. */
export function parseModelList(value: string | string[] | null | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = (Array.isArray(value) ? value : value.split(',')).map((m) => m.trim()).filter(Boolean);
  if (new Set(items).size !== items.length) throw new BusinessError(MESSAGES.duplicateModels);
  for (const item of items) if (item.length > 255) throw new BusinessError('model name is too long');
  return items;
}

export function parseGroups(input: Pick<ChannelInput, 'group' | 'groups'>): string[] | undefined {
  const raw = input.groups ?? input.group;
  if (raw === undefined) return undefined;
  const items = (Array.isArray(raw) ? raw : raw.split(',')).map((g) => g.trim()).filter(Boolean);
  for (const item of items) if (item.length > 64 || /[\s,]/.test(item)) throw new BusinessError('invalid group name');
  return [...new Set(items)];
}

export function parseBaseUrl(value: string | null | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = (value ?? '').trim().replace(/\/+$/, '');
  if (text === '') return '';
  if (!/^https?:\/\/[^\s]+$/i.test(text)) throw new BusinessError('base url must start with http:// or https://');
  if (text.length > 512) throw new BusinessError('base url is too long');
  return text;
}

/** A `:id` route parameter; anything but digits is a missing channel. */
export function channelId(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new NotFoundError(MESSAGES.notFound);
  return Number(value);
}
