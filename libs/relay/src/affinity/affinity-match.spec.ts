import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AffinityRule } from '@gw/option';
import { type AffinityRequest, matchAffinity } from './affinity-match.js';

const rule = (fields: Partial<AffinityRule> = {}): AffinityRule => ({
  name: 'r',
  model_regex: ['^gpt-'],
  key_sources: [{ type: 'gjson', path: 'prompt_cache_key' }],
  include_rule_name: true,
  ...fields,
});

const request = (fields: Partial<AffinityRequest> = {}): AffinityRequest => ({
  model: 'gpt-5',
  path: '/v1/responses',
  headers: {},
  body: { prompt_cache_key: 'session-abc' },
  usingGroup: 'default',
  context: { id: 7, token_id: 9, token_name: 'ci', group: 'vip' },
  ...fields,
});

describe('matchAffinity', () => {
  it('keys a match by rule name, then the value, and fingerprints the value as new-api does', () => {
    const m = matchAffinity([rule()], 3600, request())!;
    expect(m.cacheKey).toBe('r:session-abc');
    expect(m.fingerprint).toBe(createHash('sha1').update('session-abc').digest('hex').slice(0, 8));
    expect(m.hint).toBe('session-abc');
    expect(m.ttlSeconds).toBe(3600);
    expect(m.source).toEqual({ type: 'gjson', path: 'prompt_cache_key' });
  });

  it('adds the model and group when the rule includes them, and takes the rule TTL over the default', () => {
    const m = matchAffinity([rule({ include_model_name: true, include_using_group: true, ttl_seconds: 60 })], 3600, request())!;
    expect(m.cacheKey).toBe('r:gpt-5:default:session-abc');
    expect(m.ttlSeconds).toBe(60);
  });

  it('needs the model to match, and the path and user agent when the rule names them', () => {
    expect(matchAffinity([rule()], 60, request({ model: 'claude-3' }))).toBeUndefined();
    expect(matchAffinity([rule({ model_regex: [] })], 60, request())).toBeUndefined();
    expect(matchAffinity([rule({ path_regex: ['^/v1/messages$'] })], 60, request())).toBeUndefined();
    expect(matchAffinity([rule({ path_regex: ['/v1/responses'] })], 60, request())).toBeDefined();
    const agents = rule({ user_agent_include: ['Codex'] });
    expect(matchAffinity([agents], 60, request({ headers: { 'user-agent': 'curl/8' } }))).toBeUndefined();
    expect(matchAffinity([agents], 60, request({ headers: { 'user-agent': 'codex_cli_rs/0.1' } }))).toBeDefined();
  });

  it('tries the key sources in order and moves to the next rule when none yields a value', () => {
    const claude = rule({
      name: 'claude',
      key_sources: [
        { type: 'request_header', key: 'X-Claude-Code-Session-Id' },
        { type: 'gjson', path: 'metadata.user_id', nested_path: 'session_id' },
      ],
    });
    const fromHeader = matchAffinity([claude], 60, request({ headers: { 'x-claude-code-session-id': ' s-1 ' } }))!;
    expect(fromHeader.value).toBe('s-1');
    const nested = matchAffinity([claude], 60, request({ body: { metadata: { user_id: JSON.stringify({ session_id: 's-2' }) } } }))!;
    expect(nested.value).toBe('s-2');
    expect(nested.source.path).toBe('metadata.user_id');
    // A user_id that is not JSON has no session_id: the next rule is tried.
    const fallback = rule({ name: 'user', key_sources: [{ type: 'context_int', key: 'id' }] });
    const m = matchAffinity([claude, fallback], 60, request({ body: { metadata: { user_id: 'plain' } } }))!;
    expect(m.rule.name).toBe('user');
    expect(m.value).toBe('7');
  });

  it('reads array indices, numbers and objects from the body, and caller fields from the context', () => {
    const at = (path: string, body: unknown) =>
      matchAffinity([rule({ key_sources: [{ type: 'gjson', path }] })], 60, request({ body }))?.value;
    expect(at('messages.0.content', { messages: [{ content: 'first' }] })).toBe('first');
    expect(at('n', { n: 42 })).toBe('42');
    expect(at('o', { o: { a: 1 } })).toBe('{"a":1}');
    expect(at('missing', {})).toBeUndefined();
    expect(at('n', { n: null })).toBeUndefined();
    expect(at('a\\.b', { 'a.b': 'dotted' })).toBe('dotted');
    const ctx = (key: string) => matchAffinity([rule({ key_sources: [{ type: 'context_string', key }] })], 60, request())?.value;
    expect(ctx('token_name')).toBe('ci');
    expect(ctx('group')).toBe('vip');
    expect(matchAffinity([rule({ key_sources: [{ type: 'context_int', key: 'token_id' }] })], 60, request())?.value).toBe('9');
  });

  it('skips a value the value pattern refuses', () => {
    expect(matchAffinity([rule({ value_regex: '^conv-' })], 60, request())).toBeUndefined();
    expect(matchAffinity([rule({ value_regex: '^session-' })], 60, request())).toBeDefined();
  });

  it('stores a long value by its hash, so a client cannot grow the cache with huge keys', () => {
    const long = 'x'.repeat(10_000);
    const m = matchAffinity([rule()], 60, request({ body: { prompt_cache_key: long } }))!;
    expect(m.cacheKey).toBe(`r:sha256-${createHash('sha256').update(long).digest('hex')}`);
    expect(m.hint).toBe('xxxx...xxxx');
  });

  it('reads own header and caller fields only, never a prototype member', () => {
    const on = (type: 'request_header' | 'context_string', key: string) =>
      matchAffinity([rule({ key_sources: [{ type, key }] })], 60, request())?.value;
    expect(on('request_header', 'constructor')).toBeUndefined();
    expect(on('context_string', 'toString')).toBeUndefined();
  });

  it("reads Go's (?i) flag group as new-api's operators write it", () => {
    expect(matchAffinity([rule({ model_regex: ['(?i)^GPT-'] })], 60, request())).toBeDefined();
  });
});
