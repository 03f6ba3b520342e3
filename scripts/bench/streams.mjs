// The streams scenario of `npm run bench` (`npm run bench -- streams`): many long streams from a slow
// provider (one chunk every BENCH_CHUNK_MS), then clients that stop reading a fast stream and leave.
// Prints failures, gateway CPU per relayed chunk, RSS, and a normal request's added p50 during the load.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { percentile } from './load.mjs';
import { MODEL } from './models.mjs';
import { cpuMs, pin, pinningPlan, processTree, startBareRelay, stop, treeCpuMs, treeRssMb, treeSystemCpuMs } from './processes.mjs';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
const OPEN_PER_SECOND = Number(process.env.BENCH_OPEN_PER_SECOND ?? 500);
const CHUNK_MS = Number(process.env.BENCH_CHUNK_MS ?? 200);
const STALLED = Number(process.env.BENCH_STALLED ?? 1000);
/** Seconds of each measuring window once every stream is open (CPU alone, then normal requests). */
const WINDOW_SECONDS = Number(process.env.BENCH_WINDOW_SECONDS ?? 8);
const STALL_SECONDS = 8;

/** The 1-minute load average (the machine may be shared: figures are only comparable at similar load). */
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (n) => (Number.isFinite(n) ? `${n.toFixed(2)} ms` : 'n/a');

/** The soft limit on open files of a process (each socket is one). */
function openFilesLimit(pid) {
  const match = /Max open files\s+(\d+|unlimited)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return match?.[1] === 'unlimited' ? Infinity : Number(match?.[1] ?? NaN);
}

function startClients(gatewayUrl, key) {
  const child = fork(new URL('./stream-clients.mjs', import.meta.url).pathname, {
    env: { ...process.env, BENCH_GATEWAY_URL: gatewayUrl, BENCH_KEY: key },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stats = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send({ cmd: 'stats' });
    });
  return { child, stats, send: (message) => child.send(message) };
}

/** Normal (JSON) request latencies, one at a time, for `seconds`. */
async function probe(normal, seconds) {
  const { url, key } = normal;
  const samples = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    try {
      samples.push(await normalRequest(url, key));
    } catch {
      errors++;
    }
  }
  return { samples, errors };
}

/** Keeps one connection for the probes; a request after the stalled clients left uses a fresh one. */
const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** A normal (JSON) request: ms until its whole answer, failing after 5 s. */
async function normalRequest(url, key, agent = probeAgent) {
  const started = performance.now();
  await freshRequest(url, key, agent);
  return performance.now() - started;
}

/** A normal request, by default on a new connection (the listen queue must be taking connections again). */
function freshRequest(url, key, agent = false) {
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Are you there?' }], max_tokens: 8 });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        timeout: 5000,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(agent ? {} : { connection: 'close' }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** SSE events the fake provider's slow streams have sent so far. */
async function providerEventsSent(upstreamUrl) {
  return (await (await fetch(`${upstreamUrl}/bench/sent`)).json()).events;
}

async function waitUntil(check, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(250);
  }
  return false;
}

/**
 * CPU of `pid`'s process tree over one window of WINDOW_SECONDS while `clients` read their streams through
 * it, with the chunks the clients received and the events the provider sent meanwhile; the provider's and
 * the clients' CPU beside it, for scale.
 */
async function chunkWindow(pid, upstream, clients) {
  const before = await clients.stats();
  const sentBefore = await providerEventsSent(upstream.url);
  const cpuBefore = treeCpuMs(pid);
  const systemCpuBefore = treeSystemCpuMs(pid);
  const upstreamCpuBefore = cpuMs(upstream.child.pid);
  const clientsCpuBefore = cpuMs(clients.child.pid);
  const t0 = performance.now();
  await sleep(WINDOW_SECONDS * 1000);
  const cpuUsed = treeCpuMs(pid) - cpuBefore;
  const systemCpuUsed = treeSystemCpuMs(pid) - systemCpuBefore;
  const upstreamCpu = cpuMs(upstream.child.pid) - upstreamCpuBefore;
  const clientsCpu = cpuMs(clients.child.pid) - clientsCpuBefore;
  const after = await clients.stats();
  const sent = (await providerEventsSent(upstream.url)) - sentBefore;
  const seconds = (performance.now() - t0) / 1000;
  return { chunks: after.chunks - before.chunks, seconds, cpuUsed, systemCpuUsed, upstreamCpu, clientsCpu, sent };
}

/** Opens STREAMS streams of `chunksPerStream` chunks and waits until each has received its first event. */
async function openStreams(clients, chunksPerStream) {
  clients.send({ cmd: 'open', count: STREAMS, perSecond: OPEN_PER_SECOND, chunks: chunksPerStream });
  // Measure only once every stream is flowing (request set-up is not per-chunk work).
  await waitUntil(async () => (await clients.stats()).started >= STREAMS, (STREAMS / OPEN_PER_SECOND) * 1000 + 30_000);
  await sleep(1000);
}

/**
 * The same streams through the bare Node relay (bare-relay.mjs) on the gateway's CPU: what Node and the
 * kernel cost per relayed chunk on this machine before any work of the gateway's own, the floor under its
 * figure. Undefined with BENCH_BARE_RELAY=0.
 */
async function bareRelayWindow(upstream, pinning) {
  if (process.env.BENCH_BARE_RELAY === '0') return undefined;
  console.log(`the same ${STREAMS} streams through a bare Node relay, for scale ...`);
  const relay = await startBareRelay(upstream.url);
  const clients = startClients(relay.url, 'sk-bench-bare-relay');
  try {
    if (pinning) {
      pin(relay.child.pid, pinning.gateway);
      pin(clients.child.pid, pinning.rest);
    }
    await openStreams(clients, Math.ceil(((STREAMS / OPEN_PER_SECOND + WINDOW_SECONDS + 10) * 1000) / CHUNK_MS));
    const window = await chunkWindow(relay.child.pid, upstream, clients);
    const perChunk = (ms) => (ms * 1000) / Math.max(1, window.chunks);
    return {
      total: perChunk(window.cpuUsed),
      user: perChunk(window.cpuUsed - window.systemCpuUsed),
      kernel: perChunk(window.systemCpuUsed),
    };
  } finally {
    clients.child.kill();
    await stop(relay.child);
  }
}

/** Runs the scenario against a started gateway and fake provider (each with `child.pid`, `url`) with a relay key. */
export async function runStreams(gateway, upstream, normalUpstream, key) {
  const normal = { url: gateway.url, key };
  // The same request straight to its provider: what the machine's load adds without the gateway.
  const direct = { url: normalUpstream.url, key: 'sk-bench-upstream' };
  const pid = gateway.child.pid;
  const needed = 2 * (STREAMS + STALLED) + 100;
  const limit = openFilesLimit(pid);
  console.log(
    `streams: ${STREAMS} streams (a chunk every ${CHUNK_MS} ms, opened at ${OPEN_PER_SECOND}/s), then ${STALLED} clients that stop reading`,
  );
  if (limit < needed) console.log(`WARNING: the gateway may open ${needed} sockets but its open-files limit is ${limit} (raise ulimit -n)`);

  // Baseline: a normal request on an idle gateway.
  await probe(normal, 1);
  const idle = await probe(normal, 3);
  const idleP50 = percentile(idle.samples, 50);
  const directIdleP50 = percentile((await probe(direct, 2)).samples, 50);

  const clients = startClients(gateway.url, key);
  const pinning = pinningPlan();
  if (pinning) {
    for (const p of processTree(pid)) pin(p, pinning.gateway);
    for (const p of [upstream.child.pid, normalUpstream.child.pid, clients.child.pid, process.pid]) pin(p, pinning.rest);
    console.log(
      `pinned: gateway on CPU ${pinning.gateway}; fake provider, clients and bench on CPU ${pinning.rest} (BENCH_PIN=0 to turn off)`,
    );
  } else {
    console.log('not pinned (BENCH_PIN=0, one core, or no taskset): the gateway shares its cores with the load');
  }
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, treeRssMb(pid))), 500);
  const rampSeconds = STREAMS / OPEN_PER_SECOND;
  // Every stream outlives the ramp and both windows, with a margin for a slow start.
  const streamSeconds = rampSeconds + 2 * WINDOW_SECONDS + 15;
  const chunksPerStream = Math.ceil((streamSeconds * 1000) / CHUNK_MS);
  console.log(`opening ${STREAMS} streams of ${chunksPerStream} chunks ...`);
  await openStreams(clients, chunksPerStream);

  console.log(`measuring: gateway CPU for ${WINDOW_SECONDS} s, then normal requests for ${WINDOW_SECONDS} s ...`);
  // Window 1: gateway CPU per relayed chunk (no other traffic).
  const loadBefore = loadAverage();
  const window1 = await chunkWindow(pid, upstream, clients);
  const { chunks, seconds, cpuUsed, systemCpuUsed } = window1;
  const cpuPerChunkUs = (cpuUsed * 1000) / Math.max(1, chunks);
  const upstreamPerChunkUs = (window1.upstreamCpu * 1000) / Math.max(1, chunks);
  const clientsPerChunkUs = (window1.clientsCpu * 1000) / Math.max(1, chunks);
  const offeredPerSecond = (STREAMS * 1000) / CHUNK_MS;
  const reachedPerSecond = chunks / seconds;
  const rssUnderLoad = treeRssMb(pid);
  const loadAfter = loadAverage();

  // Window 2: a normal request's latency while the streams run.
  const loaded = await probe(normal, WINDOW_SECONDS);
  const loadedP50 = percentile(loaded.samples, 50);
  const directLoadedP50 = percentile((await probe(direct, 3)).samples, 50);

  // Every stream ends by itself; wait for the last ones (bounded: a loaded machine delays the provider's chunks).
  await waitUntil(async () => {
    const s = await clients.stats();
    return s.done + s.failed >= STREAMS;
  }, streamSeconds * 1000);
  const streamsEnd = await clients.stats();
  clearInterval(sampler);

  console.log(`${STALLED} clients stop reading ...`);
  // Non-reading clients: the upstream floods, the clients never read, then they leave.
  const rssBeforeStall = treeRssMb(pid);
  const stallRss = [];
  clients.send({ cmd: 'stall', count: STALLED });
  await waitUntil(async () => (await clients.stats()).stalledAnswered >= STALLED, 20_000);
  for (let i = 0; i < 4; i++) {
    await sleep((STALL_SECONDS * 1000) / 8);
    stallRss.push(treeRssMb(pid));
  }
  const stalledProbe = await probe(normal, STALL_SECONDS / 2);
  const stalledStats = await clients.stats();
  const rssStalled = treeRssMb(pid);
  console.log('they leave ...');
  clients.send({ cmd: 'leave' });
  const left = performance.now();
  // Serving again: a fresh connection's normal request after they left.
  let servedAfterMs = NaN;
  await waitUntil(async () => {
    try {
      await freshRequest(gateway.url, key);
      servedAfterMs = performance.now() - left;
      return true;
    } catch {
      return false;
    }
  }, 30_000);
  await sleep(2000);
  const cpuIdleBefore = cpuMs(pid);
  await sleep(3000);
  const idleCpuPercent = (cpuMs(pid) - cpuIdleBefore) / 30;
  const rssAfterLeave = treeRssMb(pid);
  clients.child.kill();
  probeAgent.destroy();
  const bare = await bareRelayWindow(upstream, pinning);

  const row = (name, value) => console.log(`${name.padEnd(60)}${value}`);
  console.log('');
  row('streams opened / completed / failed', `${streamsEnd.opened} / ${streamsEnd.done} / ${streamsEnd.failed}`);
  if (streamsEnd.failed) row('  failure reasons', JSON.stringify(streamsEnd.reasons));
  row('stream first byte p50 / max', `${ms(streamsEnd.firstByteP50)} / ${ms(streamsEnd.firstByteMax)}`);
  row(
    'chunks relayed per second (window 1) / offered',
    `${reachedPerSecond.toFixed(0)} / ${offeredPerSecond.toFixed(0)} (${reachedPerSecond >= 0.95 * offeredPerSecond ? 'reached' : 'NOT reached'})`,
  );
  // Chunks are counted where they arrive (relayed), not where they are sent: a gateway that falls behind
  // would otherwise be credited with chunks still queued in its sockets. The two agree when it keeps up.
  row('  events sent by the provider in window 1 / relayed', `${window1.sent} / ${chunks}`);
  row('gateway CPU per relayed chunk (its process tree)', `${cpuPerChunkUs.toFixed(1)} us`);
  row(
    '  user / kernel (socket reads and writes)',
    `${(((cpuUsed - systemCpuUsed) * 1000) / Math.max(1, chunks)).toFixed(1)} us / ${((systemCpuUsed * 1000) / Math.max(1, chunks)).toFixed(1)} us`,
  );
  if (bare) {
    row(
      '  for scale, a bare Node relay of the same streams',
      `${bare.total.toFixed(1)} us (${bare.user.toFixed(1)} us / ${bare.kernel.toFixed(1)} us)`,
    );
    row("  the gateway's own work per chunk (beyond the bare relay)", `${(cpuPerChunkUs - bare.total).toFixed(1)} us`);
  }
  row('  for scale, CPU per chunk: fake provider / clients', `${upstreamPerChunkUs.toFixed(1)} us / ${clientsPerChunkUs.toFixed(1)} us`);
  row('  load average before / after window 1', `${loadBefore} / ${loadAfter}`);
  row('gateway RSS under load / peak', `${rssUnderLoad.toFixed(0)} MB / ${peakRss.toFixed(0)} MB`);
  row('normal request p50 idle / under load / added', `${ms(idleP50)} / ${ms(loadedP50)} / ${ms(loadedP50 - idleP50)}`);
  row('normal request errors under load', loaded.errors);
  row(
    '  for scale, straight to its provider: idle / under load',
    `${ms(directIdleP50)} / ${ms(directLoadedP50)} (the load's share on the provider's side)`,
  );
  row(`non-reading clients answered`, `${stalledStats.stalledAnswered} / ${STALLED}`);
  row(
    'RSS before / while stalled (samples) / end',
    `${rssBeforeStall.toFixed(0)} MB / ${stallRss.map((r) => r.toFixed(0)).join(', ')} / ${rssStalled.toFixed(0)} MB`,
  );
  row('normal request p50 while stalled', `${ms(percentile(stalledProbe.samples, 50))} (${stalledProbe.errors} errors)`);
  row('first normal request served after they left', ms(servedAfterMs));
  row('gateway CPU 2-5 s after they left', `${idleCpuPercent.toFixed(1)} %`);
  row('RSS after they left', `${rssAfterLeave.toFixed(0)} MB`);

  const targets = [
    ['offered chunk rate reached (else the clients or provider, not the gateway, limit)', reachedPerSecond >= 0.95 * offeredPerSecond],
    ['0 failed streams', streamsEnd.failed === 0 && streamsEnd.done === STREAMS],
    ['CPU per relayed chunk <= 25 us', cpuPerChunkUs <= 25],
    ['RSS <= 500 MB', peakRss <= 500],
    ['added p50 of a normal request <= 2 ms', loadedP50 - idleP50 <= 2 && loaded.errors === 0],
    ['RSS bounded while clients stop reading (< +100 MB)', rssStalled - rssBeforeStall < 100],
    ['serving and idle after they left', servedAfterMs < 1000 && idleCpuPercent < 5],
  ];
  console.log('');
  for (const [name, ok] of targets) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
}
