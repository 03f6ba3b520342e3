import { describe, expect, it } from 'vitest';
import { keywordMatcher, statusMatcher } from './channel-health.service.js';
import { parseBaseUrl, parseGroups, parseJsonField, parseModelList, parsePriority, parseWeight } from './channel-input.js';
import { mapModel } from './channel-test.service.js';
import { likeEscape } from './channel.repository.js';

describe('channel form parsing', () => {
  it('parses priority and weight with the spec messages', () => {
    expect(parsePriority('-999')).toBe(-999);
    expect(parsePriority(10)).toBe(10);
    expect(parsePriority(undefined)).toBeUndefined();
    for (const bad of [-1000, 1.5, 'x', '1e3', {}]) expect(() => parsePriority(bad)).toThrow('priority must be an integer');
    expect(parseWeight('0')).toBe(0);
    for (const bad of [-1, 0.5, 'abc', true]) expect(() => parseWeight(bad)).toThrow('weight must be non-negative integer');
  });

  it('parses lists, JSON fields and base URLs', () => {
    expect(parseModelList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(() => parseModelList('a,b,a')).toThrow('some models already exist');
    expect(parseGroups({ group: 'default, vip' })).toEqual(['default', 'vip']);
    expect(parseGroups({ groups: ['vip', 'vip'] })).toEqual(['vip']);
    expect(parseJsonField('{"a":"b"}', 'bad')).toBe('{"a":"b"}');
    expect(parseJsonField('', 'bad')).toBe('');
    expect(parseJsonField({ a: 1 }, 'bad')).toBe('{"a":1}');
    for (const bad of ['{', '[]', '"x"', '1']) expect(() => parseJsonField(bad, 'bad')).toThrow('bad');
    expect(parseBaseUrl('https://x.com/v1///')).toBe('https://x.com/v1');
    expect(parseBaseUrl('')).toBe('');
    expect(() => parseBaseUrl('javascript:alert(1)')).toThrow();
  });

  it('matches disable status codes and keywords', () => {
    const m = statusMatcher('401, 403,500-503');
    expect([401, 403, 500, 502, 503].every(m)).toBe(true);
    expect([400, 429, 504].some(m)).toBe(false);
    const k = keywordMatcher('You exceeded your current quota\nPermission denied');
    expect(k('Error: you EXCEEDED your current quota!')).toBe(true);
    expect(k('rate limited')).toBe(false);
  });

  it('maps model chains with cycle detection and escapes LIKE', () => {
    expect(mapModel({ a: 'b', b: 'c' }, 'a')).toBe('c');
    expect(mapModel({ a: 'b', b: 'a' }, 'a')).toBe('b');
    expect(mapModel({}, 'x')).toBe('x');
    expect(likeEscape('50%_off!')).toBe('50!%!_off!!');
  });
});
