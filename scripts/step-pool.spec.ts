import { afterEach, describe, expect, it, vi } from 'vitest';
import { runPool, type Step, type StepResult } from './step-pool.mjs';

const step = (name: string, after: string[] = []): Step => ({ name, cmd: 'true', args: [], after });

/** A fake runner: each step ends when the test says so, and the test sees which are running. */
function controlledRunner() {
  const running = new Map<string, (result: StepResult) => void>();
  const started: string[] = [];
  let changed: () => void = () => undefined;
  const run = (s: Step) =>
    new Promise<StepResult>((resolve) => {
      started.push(s.name);
      running.set(s.name, resolve);
      changed();
    });
  const finish = (name: string, code = 0) => {
    const resolve = running.get(name);
    if (!resolve) throw new Error(`${name} is not running`);
    running.delete(name);
    resolve({ code, output: '' });
  };
  /** Resolves once exactly these steps are running. */
  const whenRunning = (names: string[]) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if ([...running.keys()].sort().join() === [...names].sort().join()) resolve();
      };
      changed = check;
      check();
    });
  return { run, finish, whenRunning, started };
}

describe('runPool', () => {
  afterEach(() => vi.restoreAllMocks());

  it('runs at most `lanes` steps at once and starts a waiting step as soon as its dependency passes', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const r = controlledRunner();
    const done = runPool([step('a'), step('b'), step('c', ['a']), step('d')], 2, r.run);
    await r.whenRunning(['a', 'b']);
    r.finish('a');
    await r.whenRunning(['b', 'c']);
    r.finish('b');
    await r.whenRunning(['c', 'd']);
    r.finish('c');
    r.finish('d');
    expect(await done).toBe(false);
    expect(r.started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reports failure and skips the steps that need a failed one, still running the others', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const r = controlledRunner();
    const done = runPool([step('build'), step('report', ['build']), step('lint')], 2, r.run);
    await r.whenRunning(['build', 'lint']);
    r.finish('build', 1);
    r.finish('lint');
    expect(await done).toBe(true);
    expect(r.started).toEqual(['build', 'lint']);
    expect(log.mock.calls.flat().join('\n')).toContain('SKIP report');
  });

  it('runs real commands and keeps their exit codes', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const ok = { name: 'ok', cmd: process.execPath, args: ['-e', 'process.exit(0)'], after: [] };
    const bad = { name: 'bad', cmd: process.execPath, args: ['-e', 'process.exit(3)'], after: [] };
    expect(await runPool([ok], 1)).toBe(false);
    expect(await runPool([ok, bad], 2)).toBe(true);
  });
});
