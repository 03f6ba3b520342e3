import { describe, expect, it } from 'vitest';
import { workerExecArgv } from './worker-exec-argv.js';

describe('workerExecArgv', () => {
  const primary = ['--max-semi-space-size=4', '--heap-growing-percent=20'];

  it('keeps the primary flags and adds single-threaded GC when every core has a worker', () => {
    expect(workerExecArgv(primary, 2, 2)).toEqual([...primary, '--single-threaded-gc']);
    expect(workerExecArgv(primary, 4, 2)).toEqual([...primary, '--single-threaded-gc']);
  });

  it('leaves V8 its GC helper threads while some cores have no worker', () => {
    expect(workerExecArgv(primary, 2, 4)).toEqual(primary);
  });

  it("keeps an operator's own GC threading choice, on the command line or in NODE_OPTIONS", () => {
    expect(workerExecArgv(['--no-single-threaded-gc'], 2, 2)).toEqual(['--no-single-threaded-gc']);
    expect(workerExecArgv(['--parallel_scavenge'], 2, 2)).toEqual(['--parallel_scavenge']);
    expect(workerExecArgv([], 2, 2, '--max-old-space-size=512 --no-concurrent-marking')).toEqual([]);
    expect(workerExecArgv([], 2, 2, '--max-old-space-size=512')).toEqual(['--single-threaded-gc']);
  });
});
