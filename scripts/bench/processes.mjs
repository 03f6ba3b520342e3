// Child processes for the bench: the fake provider and the built gateway, plus /proc readings.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ (getconf CLK_TCK) on every mainstream kernel

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startFakeUpstream() {
  const child = spawn(process.execPath, [new URL('./fake-upstream.mjs', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake upstream exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${JSON.parse(line).port}` };
}

export async function startGateway(entry, env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (part) => (stderr += part));
  const url = `http://127.0.0.1:${env.PORT}`;
  // Generous: on a shared machine the first start (module loading, migrations) can take a while.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${stderr}`);
    const up = await fetch(`${url}/api/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, url };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function stop(child) {
  if (child.exitCode === null) child.kill('SIGTERM');
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
}

/** The process and its children (a WORKERS=N gateway is a primary and N workers). */
function processTree(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    // gone, or a kernel without the children file: the process alone
  }
  return [pid, ...children.flatMap(processTree)];
}

/** User + system CPU time of a process and its children so far, in ms. */
export function treeCpuMs(pid) {
  return processTree(pid).reduce((sum, p) => sum + cpuMs(p), 0);
}

/** Resident memory of a process and its children, in MB. */
export function treeRssMb(pid) {
  return processTree(pid).reduce((sum, p) => sum + rssMb(p), 0);
}

/** User and system (kernel) CPU time of a process so far, in ms. */
export function cpuSplitMs(pid) {
  // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(fields[11]) * 1000) / CLOCK_TICKS_PER_SECOND, system: (Number(fields[12]) * 1000) / CLOCK_TICKS_PER_SECOND };
}

/** User + system CPU time of a process so far, in ms. */
export function cpuMs(pid) {
  const { user, system } = cpuSplitMs(pid);
  return user + system;
}

/** Kernel CPU time of a process and its children so far, in ms (socket writes and reads are mostly this). */
export function treeSystemCpuMs(pid) {
  return processTree(pid).reduce((sum, p) => sum + cpuSplitMs(p).system, 0);
}

export function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}
