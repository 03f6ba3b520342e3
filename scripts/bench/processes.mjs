// Child processes for the bench: the fake provider and the built gateway, plus /proc readings.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { GATEWAY_NODE_FLAGS, gatewayEnv } from '../gateway-runtime.mjs';

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ (getconf CLK_TCK) on every mainstream kernel

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function startFakeUpstream() {
  return startListener('./fake-upstream.mjs');
}

/** The streams scenario's bare Node relay (bare-relay.mjs) in front of `upstreamUrl`, with the gateway's V8 flags. */
export function startBareRelay(upstreamUrl) {
  return startListener('./bare-relay.mjs', { BENCH_UPSTREAM_URL: upstreamUrl }, GATEWAY_NODE_FLAGS);
}

/** A bench script run as a child process that prints `{"port": n}` on its first stdout line once it listens. */
async function startListener(script, env = {}, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, new URL(script, import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
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

/**
 * The built gateway on a free port, started the way `npm start` starts it (same V8 flags and malloc
 * settings), on `database` (benchDatabase) with auth, billing and logs on and rate limits out of the way.
 */
export async function startBenchGateway(entry, { dataDir, database, workers }) {
  const port = await freePort();
  const env = gatewayEnv({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...database.env,
    SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
    GLOBAL_API_RATE_LIMIT: '100000000',
    CRITICAL_RATE_LIMIT: '100000000',
    WORKERS: workers,
  });
  // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the gateway.
  return startGateway(entry, env, [...GATEWAY_NODE_FLAGS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)]);
}

export function stop(child) {
  if (child.exitCode === null) child.kill('SIGTERM');
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
}

/** The process and its children (a WORKERS=N gateway is a primary and N workers). */
export function processTree(pid) {
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

/**
 * Busy CPU time of the whole machine so far, in ms, every core together (/proc/stat: user, nice, system, irq,
 * softirq and steal; idle and iowait left out). Over a run it counts the gateway, its database server, the load
 * generator and the provider alike, and anything else the machine does meanwhile.
 */
export function machineBusyMs() {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const busy = ticks.reduce((sum, n) => sum + n, 0) - ticks[3] - ticks[4];
  return (busy * 1000) / CLOCK_TICKS_PER_SECOND;
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

/**
 * CPU sets for the streams scenario's processes (BENCH_PIN): on a machine of 2+ cores the gateway gets
 * core 0 and the fake provider, the clients and the bench itself the rest, so the gateway's CPU per chunk
 * is not inflated by competing for a core with the load it is measured under (cache, run queue). `0` turns
 * pinning off; `gateway:rest` (e.g. `0:1-3`) chooses the sets. Off where taskset is missing.
 */
export function pinningPlan(env = process.env) {
  const setting = env.BENCH_PIN ?? 'auto';
  if (setting === '0' || setting === 'off') return undefined;
  if (spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status !== 0) return undefined;
  if (setting !== 'auto' && setting !== '1') {
    const [gateway, rest] = setting.split(':');
    if (!gateway || !rest) throw new Error(`BENCH_PIN must be 0, auto or <gateway cpus>:<other cpus>, not "${setting}"`);
    return { gateway, rest };
  }
  const cores = availableParallelism();
  if (cores < 2) return undefined;
  return { gateway: '0', rest: cores === 2 ? '1' : `1-${cores - 1}` };
}

/** Pins a running process and all its threads (new threads inherit the set) to `cpus`. */
export function pin(pid, cpus) {
  const result = spawnSync('taskset', ['-a', '-pc', cpus, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset -a -pc ${cpus} ${pid}: ${result.stderr.trim()}`);
}
