import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRootLogger, GatewayLogger, levelFromNest, requestContext } from './gateway-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe('the gateway logger', () => {
  it('writes JSON lines with the level name, context and the current request id', () => {
    const { lines, stream } = capture();
    const logger = new GatewayLogger(createRootLogger({ level: 'debug', pretty: false }, stream));
    logger.log('outside', 'Boot');
    requestContext.run({ requestId: 'req-123' }, () => logger.warn('inside', 'Relay'));
    logger.debug('details');
    expect(lines).toMatchObject([
      { level: 'info', context: 'Boot', msg: 'outside' },
      { level: 'warn', context: 'Relay', msg: 'inside', req_id: 'req-123' },
      { level: 'debug', msg: 'details' },
    ]);
    expect(lines[0]).not.toHaveProperty('req_id');
  });

  it('scrubs secrets from messages, fields and stacks', () => {
    const { lines, stream } = capture();
    const root = createRootLogger({ level: 'info', pretty: false }, stream);
    root.info({ url: 'redis://:topsecret1@cache:6379' }, 'key sk-AAAABBBBCCCCDDDDEEEE rejected');
    new GatewayLogger(root).error('failed', 'Error: Bearer abcdefghijkl\n    at x', 'Ctx');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('topsecret1');
    expect(text).not.toContain('BBBBCCCC');
    expect(text).not.toContain('abcdefghijkl');
    expect(lines[1]).toMatchObject({ level: 'error', context: 'Ctx', msg: 'failed' });
  });

  it('honours the level and maps Nest level lists', () => {
    const { lines, stream } = capture();
    const logger = new GatewayLogger(createRootLogger({ level: 'error', pretty: false }, stream));
    logger.log('hidden');
    logger.warn('hidden');
    logger.error('shown');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
    expect(levelFromNest(['error'])).toBe('error');
    expect(levelFromNest(['error', 'warn', 'log'])).toBe('info');
    expect(levelFromNest(['verbose', 'error'])).toBe('trace');
    expect(levelFromNest(false)).toBe('silent');
  });
});
