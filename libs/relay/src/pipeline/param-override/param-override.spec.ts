import { describe, expect, it } from 'vitest';
import { RelayError } from '../relay-error.js';
import { OverrideConfigError } from './conditions.js';
import { applyParamOverride, type OverrideFacts, overrideFailure } from './index.js';
import { OverrideReturnError } from './operations.js';

const facts = (fields: Partial<OverrideFacts> = {}): OverrideFacts => ({
  upstreamModel: 'gpt-4o',
  originalModel: 'my-gpt',
  requestPath: '/v1/chat/completions',
  clientHeaders: { 'x-session': 'abc', authorization: 'Bearer sk-client', 'anthropic-beta': 'a,b' },
  retryIndex: 0,
  ...fields,
});

const run = (body: Record<string, unknown>, operations: unknown[], channelHeaders: Record<string, string> | null = null, f = facts()) =>
  applyParamOverride(body, { operations }, channelHeaders, f);

describe('param override', () => {
  it("applies the legacy form's keys over the body", () => {
    const body = { model: 'm', temperature: 1 };
    expect(applyParamOverride(body, { temperature: 0.2, top_p: 1 }, null, facts())).toEqual({
      body: { model: 'm', temperature: 0.2, top_p: 1 },
    });
    expect(applyParamOverride(body, null, null, facts()).body).toBe(body);
  });

  it('sets, keeps, deletes, moves and copies values by path, never changing the request body', () => {
    const body = {
      messages: [
        { role: 'system', content: 'a' },
        { role: 'user', content: 'b' },
      ],
      user: 'u',
      temperature: 1,
    };
    const { body: out } = run(body, [
      { mode: 'set', path: 'temperature', value: 0.5 },
      { mode: 'set', path: 'max_tokens', value: 9, keep_origin: true },
      { mode: 'set', path: 'temperature', value: 2, keep_origin: true },
      { mode: 'set', path: 'messages.-1.content', value: 'last' },
      { mode: 'delete', path: 'user' },
      { mode: 'copy', from: 'messages.0.content', to: 'metadata.system' },
      { mode: 'move', from: 'max_tokens', to: 'max_completion_tokens' },
      { mode: 'set', path: 'stop.-1', value: 'END' },
      { mode: 'set', path: 'ids.:42', value: 'object key' },
      { mode: 'set', path: 'grid.1.0', value: 'x' },
    ]);
    expect(out).toEqual({
      messages: [
        { role: 'system', content: 'a' },
        { role: 'user', content: 'last' },
      ],
      temperature: 0.5,
      metadata: { system: 'a' },
      max_completion_tokens: 9,
      stop: ['END'],
      ids: { '42': 'object key' },
      grid: [null, ['x']],
    });
    expect(body.user).toBe('u');
    expect(body.messages[1]!.content).toBe('b');
  });

  it('prepends and appends to arrays, strings and objects, and edits strings', () => {
    const { body } = run({ tags: ['b'], text: '  Hello World  ', meta: { a: 1 }, model: 'gpt-4o-mini' }, [
      { mode: 'prepend', path: 'tags', value: ['a'] },
      { mode: 'append', path: 'tags', value: 'c' },
      { mode: 'append', path: 'meta', value: { a: 2, b: 3 }, keep_origin: true },
      { mode: 'trim_space', path: 'text' },
      { mode: 'to_lower', path: 'text' },
      { mode: 'replace', path: 'text', from: 'world', to: 'there' },
      { mode: 'ensure_suffix', path: 'text', value: '!' },
      { mode: 'ensure_prefix', path: 'model', value: 'openai/' },
      { mode: 'trim_prefix', path: 'model', value: 'openai/' },
      { mode: 'trim_suffix', path: 'model', value: '-mini' },
      { mode: 'regex_replace', path: 'text', from: '(?i)^HELLO', to: 'hi' },
      // Go's replacement syntax, `${1}`, as new-api's operators write it.
      { mode: 'regex_replace', path: 'model', from: '^gpt-(\\d)(\\w)$', to: ['GPT$', '{1}-$', '{2}'].join('') },
    ]);
    expect(body).toEqual({ tags: ['a', 'b', 'c'], text: 'hi there!', meta: { a: 1, b: 3 }, model: 'GPT4-o' });
  });

  it('runs an operation only when its conditions hold, reading the body then the context', () => {
    const ops = (conditions: unknown, logic?: string) => [{ mode: 'set', path: 'flag', value: true, conditions, logic }];
    const body = { model: 'gpt-4o', n: 3, stream: true };
    expect(run(body, ops([{ path: 'model', mode: 'prefix', value: 'gpt-' }])).body.flag).toBe(true);
    expect(run(body, ops([{ path: 'n', mode: 'gt', value: 5 }])).body.flag).toBeUndefined();
    expect(run(body, ops([{ path: 'n', mode: 'gt', value: 5, invert: true }])).body.flag).toBe(true);
    expect(run(body, ops({ stream: true })).body.flag).toBe(true);
    expect(run(body, ops([{ path: 'missing', mode: 'full', value: 1, pass_missing_key: true }])).body.flag).toBe(true);
    // AND needs both; OR (the default) either.
    const mixed = [
      { path: 'n', mode: 'lte', value: 3 },
      { path: 'stream', mode: 'full', value: false },
    ];
    expect(run(body, ops(mixed, 'AND')).body.flag).toBeUndefined();
    expect(run(body, ops(mixed)).body.flag).toBe(true);
    // The context: the original model, the request path, the client's headers and the retry.
    expect(run({}, ops([{ path: 'original_model', mode: 'full', value: 'my-gpt' }])).body.flag).toBe(true);
    expect(run({}, ops([{ path: 'request_headers.x-session', mode: 'full', value: 'abc' }])).body.flag).toBe(true);
    expect(run({}, ops([{ path: 'is_retry', mode: 'full', value: true }])).body.flag).toBeUndefined();
    const retry = facts({ retryIndex: 1, lastError: new RelayError('upstream busy', 429, 'rate_limit', 'upstream_error') });
    expect(run({}, ops([{ path: 'last_error.status_code', mode: 'full', value: 429 }]), null, retry).body.flag).toBe(true);
  });

  it('refuses comparisons of different types and unknown modes as configuration errors', () => {
    expect(() => run({ n: 1 }, [{ mode: 'set', path: 'x', value: 1, conditions: [{ path: 'n', mode: 'full', value: '1' }] }])).toThrow(
      OverrideConfigError,
    );
    expect(() => run({}, [{ mode: 'explode', path: 'x' }])).toThrow('unknown operation: explode');
    expect(() => run({ n: 1 }, [{ mode: 'to_upper', path: 'n' }])).toThrow(/operation to_upper failed/);
    expect(() => run({}, [{ mode: 'move', from: 'nope', to: 'x' }])).toThrow(/source path does not exist: nope/);
    expect(() => applyParamOverride({}, { operations: 'set' }, null, facts())).toThrow('operations must be an array');
  });

  it('prunes matching objects anywhere under a path, keeping the root', () => {
    const body = {
      tools: [{ type: 'web_search' }, { type: 'function', function: { name: 'f' } }],
      input: [{ type: 'message', content: [{ type: 'input_text' }, { type: 'web_search' }] }],
    };
    expect(run(body, [{ mode: 'prune_objects', path: '', value: 'web_search' }]).body).toEqual({
      tools: [{ type: 'function', function: { name: 'f' } }],
      input: [{ type: 'message', content: [{ type: 'input_text' }] }],
    });
    expect(run(body, [{ mode: 'prune_objects', path: 'tools', value: { where: { type: 'function' } } }]).body.tools).toEqual([
      { type: 'web_search' },
    ]);
  });

  it('edits the header override: set, map tokens, copy, move, delete and pass the client headers through', () => {
    const { headerOverride } = run(
      {},
      [
        { mode: 'set_header', path: 'X-Team', value: 'blue' },
        { mode: 'set_header', path: 'anthropic-beta', value: { b: null, '*': 'z' } },
        { mode: 'pass_headers', value: 'X-Session, Authorization, X-Absent' },
        { mode: 'copy_header', from: 'x-session', to: 'session_id' },
        { mode: 'move_header', from: 'x-team', to: 'x-squad' },
        { mode: 'delete_header', path: 'x-channel' },
        { mode: 'set_header', path: 'x-kept', value: 'new', keep_origin: true },
      ],
      { 'X-Channel': 'c', 'x-kept': 'old' },
    );
    // The client's Authorization (its gateway key) is never offered to an override.
    expect(headerOverride).toEqual({ 'x-kept': 'old', 'anthropic-beta': 'z', 'x-session': 'abc', session_id: 'abc', 'x-squad': 'blue' });
  });

  it('syncs a value between the body, a header and the context', () => {
    const { body, headerOverride } = run(
      { prompt_cache_key: 'k1' },
      [
        { mode: 'sync_fields', from: 'json:prompt_cache_key', to: 'header:session_id' },
        { mode: 'sync_fields', from: 'context:channel_affinity.key', to: 'json:metadata.session' },
      ],
      null,
      facts({ extra: { channel_affinity: { key: 'conv-9' } } }),
    );
    expect(headerOverride).toEqual({ session_id: 'k1' });
    expect(body.metadata).toEqual({ session: 'conv-9' });
  });

  it('answers with the configured error on return_error, retried only when it says so', () => {
    const refuse = (value: unknown) => {
      try {
        run({}, [{ mode: 'return_error', value }]);
      } catch (error) {
        return error;
      }
      throw new Error('no error');
    };
    const plain = refuse('this model is retired');
    expect(plain).toBeInstanceOf(OverrideReturnError);
    const failure = overrideFailure(plain, () => true)!;
    expect(failure.error.body()).toEqual({
      error: { message: 'this model is retired', type: 'invalid_request_error', param: '', code: 'invalid_request' },
    });
    expect(failure.error.httpStatus).toBe(400);
    expect(failure.retryable).toBe(false);
    const custom = overrideFailure(
      refuse({ message: 'busy', status_code: 503, code: 'busy', type: 'server_error', skip_retry: false }),
      () => true,
    )!;
    expect([custom.error.httpStatus, custom.error.errorCode, custom.error.type, custom.retryable]).toEqual([
      503,
      'busy',
      'server_error',
      true,
    ]);
    expect(refuse({ status: 200 })).toBeInstanceOf(OverrideConfigError);
    const broken = overrideFailure(new OverrideConfigError('bad'), () => true)!;
    expect([broken.error.httpStatus, broken.error.errorCode, broken.retryable]).toEqual([500, 'channel:param_override_invalid', false]);
  });

  it('keeps __proto__ an ordinary key: no operation or header name reaches a prototype', () => {
    const body = JSON.parse('{"__proto__": {"a": 1}, "meta": {}}') as Record<string, unknown>;
    const { body: out, headerOverride } = run(body, [
      { mode: 'set', path: '__proto__.polluted', value: true },
      { mode: 'set', path: 'fresh.__proto__.polluted', value: true },
      { mode: 'append', path: 'meta', value: JSON.parse('{"__proto__": {"polluted": true}}') },
      { mode: 'set_header', path: '__proto__', value: 'x' },
      { mode: 'pass_headers', value: ['constructor'] },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      JSON.parse(
        '{"__proto__": {"a": 1, "polluted": true}, "meta": {"__proto__": {"polluted": true}}, "fresh": {"__proto__": {"polluted": true}}}',
      ),
    );
    expect(Object.getPrototypeOf(out.meta)).toBe(Object.prototype);
    expect({ ...headerOverride }).toEqual(JSON.parse('{"__proto__": "x"}'));
  });
});
