import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import { buildUpstreamBody, ModelMappingCycleError, resolveModelMapping } from './upstream-body.js';
import { parseRelayRequest } from './relay-request.js';

const channel = (fields: Partial<RelayChannel>) => ({ type: 1, paramOverride: null, blockedFields: [], ...fields }) as RelayChannel;

describe('resolveModelMapping', () => {
  it('follows a chain to its end and stops on self-maps', () => {
    expect(resolveModelMapping({ a: 'b', b: 'c' }, 'a')).toBe('c');
    expect(resolveModelMapping({ a: 'a' }, 'a')).toBe('a');
    expect(resolveModelMapping({}, 'a')).toBe('a');
  });

  it('refuses a cycle', () => {
    expect(() => resolveModelMapping({ a: 'b', b: 'c', c: 'a' }, 'a')).toThrow(ModelMappingCycleError);
  });
});

describe('buildUpstreamBody', () => {
  const streaming = parseRelayRequest('chat', '/v1/chat/completions', {
    model: 'x',
    messages: [],
    stream: true,
    stream_options: { include_usage: false },
  });

  it('forces include_usage for types that support stream options and never mutates the client body', () => {
    const body = buildUpstreamBody(streaming, channel({ type: 1 }), 'y', true);
    expect(body).toMatchObject({ model: 'y', stream_options: { include_usage: true } });
    expect(streaming.body).toMatchObject({ model: 'x', stream_options: { include_usage: false } });
  });

  it('drops stream_options for other types and the listed fields (the param override is applied after, per attempt)', () => {
    const body = buildUpstreamBody(streaming, channel({ type: 8, paramOverride: { temperature: 0.5 } }), 'x', true, ['messages']);
    expect(body).toEqual({ model: 'x', stream: true });
  });

  it("drops the fields the channel's other settings block (service_tier unless allowed, as new-api)", () => {
    const request = parseRelayRequest('chat', '/v1/chat/completions', { model: 'x', messages: [], service_tier: 'priority', store: true });
    const body = buildUpstreamBody(request, channel({ blockedFields: ['service_tier', 'safety_identifier'] }), 'x', false);
    expect(body).toEqual({ model: 'x', messages: [], store: true });
  });
});
