import { describe, expect, it } from 'vitest';
import { readCommandLine } from './command-line.js';
import { ConfigError } from './env-reader.js';

describe('readCommandLine (new-api flags)', () => {
  it('takes --port when PORT is unset, in both spellings, and PORT wins when set', () => {
    expect(readCommandLine(['--port', '3100'], {}).env.PORT).toBe('3100');
    expect(readCommandLine(['-port=3200'], {}).env.PORT).toBe('3200');
    expect(readCommandLine(['--port', '3100'], { PORT: '4000' }).env.PORT).toBe('4000');
    expect(readCommandLine(['--port', '3100'], { PORT: '' }).env.PORT).toBe('3100');
  });

  it("accepts new-api's docker-compose arguments (--log-dir /app/logs) and runs", () => {
    const { env, action } = readCommandLine(['--log-dir', '/app/logs'], { PORT: '3000' });
    expect(action).toBe('run');
    expect(env).toEqual({ PORT: '3000' });
    expect(readCommandLine(['--log-dir=./logs', 'extra'], {}).action).toBe('run');
  });

  it('answers --version and --help', () => {
    expect(readCommandLine(['--version'], {}).action).toBe('version');
    expect(readCommandLine(['--help'], {}).action).toBe('help');
  });

  it('stops on a flag without its value, naming it', () => {
    expect(() => readCommandLine(['--port'], {})).toThrow(ConfigError);
    expect(() => readCommandLine(['--port'], {})).toThrow(/--port/);
  });
});
