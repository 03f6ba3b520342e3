import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { publishRelayDone, type RelayDoneEvent } from '@gw/core';
import { createRootLogger } from './gateway-logger.js';
import { relayAccessLog } from './request-logging.js';

function capture() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  const lines = () =>
    writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { writes, lines, stream };
}

function event(overrides: Partial<RelayDoneEvent> = {}): RelayDoneEvent {
  return {
    requestId: '20261125081500123abcdEFGH',
    kind: 'chat',
    model: 'gpt-4o',
    group: 'default',
    channelId: 3,
    usedChannels: [5, 3],
    ok: true,
    status: 200,
    stream: false,
    totalMs: 12.6,
    upstreamMs: 10.2,
    firstTokenMs: 0,
    promptTokens: 10,
    completionTokens: 20,
    quota: 50,
    origin: undefined,
    ...overrides,
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the relay access log', () => {
  it("writes pino's line shape, the lines of one event-loop turn in one write", async () => {
    const { writes, lines, stream } = capture();
    const stop = relayAccessLog(createRootLogger({ level: 'info', pretty: false }, stream), undefined);
    publishRelayDone(event());
    publishRelayDone(event({ status: 429, model: '', group: '', channelId: 0, usedChannels: [] }));
    publishRelayDone(event({ status: 502, stream: true }));
    await nextTurn();
    stop();
    expect(writes).toHaveLength(1);
    const [ok, refused, failed] = lines();
    expect(ok).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pid: process.pid,
      req_id: '20261125081500123abcdEFGH',
      kind: 'chat',
      model: 'gpt-4o',
      group: 'default',
      channel: 3,
      retries: 1,
      status: 200,
      stream: false,
      ms: 13,
      upstream_ms: 10,
      prompt_tokens: 10,
      completion_tokens: 20,
      quota: 50,
      msg: 'relay completed',
    });
    // Empty labels are left out, as pino leaves out undefined fields.
    expect(refused).toMatchObject({ level: 'warn', status: 429, retries: 0 });
    expect(refused).not.toHaveProperty('model');
    expect(refused).not.toHaveProperty('group');
    expect(refused).not.toHaveProperty('channel');
    expect(failed).toMatchObject({ level: 'error', status: 502, stream: true });
  });

  it('scrubs labels, escapes them as JSON, and keeps to its level and its own server', async () => {
    const { lines, stream } = capture();
    const server = {};
    const stop = relayAccessLog(createRootLogger({ level: 'warn', pretty: false }, stream), server);
    publishRelayDone(event({ status: 200, origin: server }));
    publishRelayDone(event({ status: 401, origin: {} }));
    publishRelayDone(event({ status: 401, origin: server, model: 'm "quoted" sk-AAAABBBBCCCCDDDDEEEE\n' }));
    stop();
    const written = lines();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ level: 'warn', status: 401 });
    expect(String(written[0]!.model)).toContain('"quoted"');
    expect(JSON.stringify(written)).not.toContain('BBBBCCCC');
  });

  it('subscribes nothing below warn', async () => {
    const { writes, stream } = capture();
    const stop = relayAccessLog(createRootLogger({ level: 'error', pretty: false }, stream), undefined);
    publishRelayDone(event({ status: 500 }));
    await nextTurn();
    stop();
    expect(writes).toHaveLength(0);
  });
});
