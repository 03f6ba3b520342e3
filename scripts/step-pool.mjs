// Runs command steps on a fixed number of lanes: a step starts when a lane is free and every step it waits for
// has passed. Output is kept and printed when the step ends (always for a `show` step, else only when it
// fails), so parallel logs do not interleave.
import { spawn } from 'node:child_process';

function runStep({ cmd, args }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    const keep = (chunk) => {
      output += chunk;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Resolves true when any step failed (a step whose dependency failed is skipped and counts as failed). A lane
 * with nothing ready waits until some running step ends, which is the only event that can make another ready.
 */
export async function runPool(steps, lanes, run = runStep) {
  const state = new Map(steps.map((s) => [s.name, 'waiting']));
  let failed = false;
  let stepEnded = () => undefined;
  let nextEnd = new Promise((resolve) => (stepEnded = resolve));
  const ready = () => steps.find((s) => state.get(s.name) === 'waiting' && s.after.every((name) => state.get(name) === 'passed'));
  const blocked = () => steps.filter((s) => state.get(s.name) === 'waiting' && s.after.some((name) => state.get(name) === 'failed'));

  async function lane() {
    for (;;) {
      for (const s of blocked()) {
        state.set(s.name, 'failed');
        failed = true;
        console.log(`SKIP ${s.name} (a step it needs failed)`);
      }
      const next = ready();
      if (!next) {
        if (![...state.values()].includes('running')) return;
        await nextEnd;
        continue;
      }
      state.set(next.name, 'running');
      const started = Date.now();
      const { code, output } = await run(next);
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      state.set(next.name, code === 0 ? 'passed' : 'failed');
      console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${next.name} (${seconds} s)`);
      if (code !== 0) failed = true;
      if (code !== 0 || next.show) console.log(output);
      const wake = stepEnded;
      nextEnd = new Promise((resolve) => (stepEnded = resolve));
      wake();
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane));
  return failed;
}
