// `npm run bench`: the relay's overhead against a local fake provider, side by side with calling the
// provider directly in the same run. Builds the server first when its build is missing or older than the
// sources. The gateway runs as a child process on a temporary database (SQLite, or BENCH_DB=mysql|postgres
// on a fresh database of the local server; BENCH_REDIS=1 adds Redis) with auth, billing and consume
// logging on. Not part of `npm test`. `npm run bench -- streams` (or BENCH_SCENARIO=streams) runs
// the long-streams scenario instead (scripts/bench/streams.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase, serverCpuDelta } from './bench/database.mjs';
import { startBenchGateway, startFakeUpstream, stop, treeCpuMs, treeRssMb } from './bench/processes.mjs';
import { interleavedThroughput, percentile, sideBySide, target } from './bench/load.mjs';
import { prepareGateway } from './bench/setup.mjs';
import { runStreams } from './bench/streams.mjs';
import { runWorkers } from './bench/workers.mjs';

const SCENARIO = process.argv[2] ?? process.env.BENCH_SCENARIO ?? 'relay';
if (!['relay', 'streams', 'workers'].includes(SCENARIO)) {
  console.error(`unknown bench scenario "${SCENARIO}" (relay, streams, workers)`);
  process.exit(2);
}
const N = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = 300;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 50;
/** BENCH_WORKERS=N runs the gateway with WORKERS=N (Node's cluster); CPU and RSS then add up all its processes. */
const WORKERS = process.env.BENCH_WORKERS ?? '1';
/** The c=50 phase alternates direct and gateway in this many slices of SECONDS / SLICES each. */
const SLICES = 5;
const ROOT = new URL('..', import.meta.url).pathname;
// The bench builds into its own directory: the shared dist/ may be rebuilt by someone else mid-run. It sits
// under node_modules so the built files still resolve the repository's packages.
const OUT = join(ROOT, 'node_modules/.cache/gw-bench/dist');
// BENCH_ENTRY runs an already built server instead (an A/B comparison with another commit's build).
const ENTRY = process.env.BENCH_ENTRY ?? join(OUT, 'apps/gateway/src/main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function ensureBuild() {
  if (process.env.BENCH_ENTRY) return;
  const stale = !existsSync(ENTRY) || ['apps', 'libs'].some((dir) => newestSource(join(ROOT, dir)) > statSync(ENTRY).mtimeMs);
  if (!stale) return;
  console.log(`Building the server into ${OUT} ...`);
  rmSync(OUT, { recursive: true, force: true });
  const bin = (name) => join(ROOT, 'node_modules/.bin', name);
  try {
    execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'inherit' });
  } catch (error) {
    // Type errors still emit JavaScript; only a missing entry point stops the bench.
    if (!existsSync(ENTRY)) throw error;
    console.log('(type errors above; benchmarking the emitted JavaScript anyway)');
  }
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'inherit' });
}

const ms = (n) => `${n.toFixed(3)} ms`;
const row = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 34 : 16)).join(''));

/** The default scenario: added latency, throughput, CPU and RSS against calling the provider directly. */
async function runRelay(gateway, upstream, key, usage, database) {
  const direct1 = target(upstream.url, '/v1/chat/completions', 'sk-bench-upstream', 1);
  const gateway1 = target(gateway.url, '/v1/chat/completions', key, 1);

  console.log(`c=1: ${N} JSON and ${N} stream requests each way (after ${WARMUP} warm-up) ...`);
  const json = await sideBySide(direct1, gateway1, 'callJson', WARMUP, N);
  const stream = await sideBySide(direct1, gateway1, 'callStream', WARMUP / 3, N);

  console.log(`c=${CONCURRENCY}: ${SECONDS} s each way, alternating in ${SLICES} slices ...`);
  const directN = target(upstream.url, '/v1/chat/completions', 'sk-bench-upstream', CONCURRENCY);
  const gatewayN = target(gateway.url, '/v1/chat/completions', key, CONCURRENCY);
  let gatewayCpu = 0;
  let databaseCpu = 0;
  const { direct: directRate, gateway: gatewayRate } = await interleavedThroughput(
    directN,
    gatewayN,
    CONCURRENCY,
    SECONDS,
    SLICES,
    async (run) => {
      const before = treeCpuMs(gateway.child.pid);
      const serverBefore = database.serverCpuMs();
      await run();
      gatewayCpu += treeCpuMs(gateway.child.pid) - before;
      databaseCpu += serverCpuDelta(serverBefore, database.serverCpuMs());
    },
  );
  const cpuPerRequest = gatewayCpu / Math.max(1, gatewayRate.done);
  const databaseCpuPerRequest = databaseCpu / Math.max(1, gatewayRate.done);
  const rss = treeRssMb(gateway.child.pid);
  await Promise.all([direct1, gateway1, directN, gatewayN].map((t) => t.close()));
  const self = await usage();

  const added = (s, p) => percentile(s.gateway, p) - percentile(s.direct, p);
  console.log('');
  console.log(`database: ${database.label}; gateway workers: ${WORKERS}`);
  row(['measure', 'direct', 'gateway', 'added / ratio']);
  row(['JSON latency p50 (c=1)', ms(percentile(json.direct, 50)), ms(percentile(json.gateway, 50)), ms(added(json, 50))]);
  row(['JSON latency p99 (c=1)', ms(percentile(json.direct, 99)), ms(percentile(json.gateway, 99)), ms(added(json, 99))]);
  row(['stream first byte p50 (c=1)', ms(percentile(stream.direct, 50)), ms(percentile(stream.gateway, 50)), ms(added(stream, 50))]);
  row(['stream first byte p99 (c=1)', ms(percentile(stream.direct, 99)), ms(percentile(stream.gateway, 99)), ms(added(stream, 99))]);
  row([
    `throughput req/s (c=${CONCURRENCY})`,
    directRate.perSecond.toFixed(0),
    gatewayRate.perSecond.toFixed(0),
    (gatewayRate.perSecond / directRate.perSecond).toFixed(3),
  ]);
  row(['gateway CPU per request', '', ms(cpuPerRequest), '']);
  if (database.kind !== 'sqlite') row(['database server CPU per request', '', ms(databaseCpuPerRequest), '']);
  row(['gateway RSS at the end', '', `${rss.toFixed(1)} MB`, '']);
  console.log(
    `errors: direct ${directRate.errors}, gateway ${gatewayRate.errors}; billed to the bench user: ${self.used_quota} quota over ${self.request_count} requests`,
  );

  const targets = [
    ['added p50 JSON at c=1 <= 0.5 ms', added(json, 50) <= 0.5],
    ['added p50 stream first byte at c=1 <= 0.5 ms', added(stream, 50) <= 0.5],
    ['CPU per request <= 0.4 ms', cpuPerRequest <= 0.4],
    [`throughput >= 0.15 x direct at c=${CONCURRENCY}`, gatewayRate.perSecond >= 0.15 * directRate.perSecond],
    ['RSS <= 150 MB', rss <= 150],
    ['every request billed and answered', gatewayRate.errors === 0 && self.request_count > 0 && self.used_quota > 0],
  ];
  console.log('');
  for (const [name, ok] of targets) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
}

ensureBuild();
// The workers scenario starts its own gateways (one per worker count), each on a fresh database.
if (SCENARIO === 'workers') process.exit(await runWorkers(ENTRY));
const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
const database = await benchDatabase(dataDir);
const upstream = await startFakeUpstream();
// The streams scenario's normal requests go to a provider process of their own (see prepareGateway).
const normalUpstream = SCENARIO === 'streams' ? await startFakeUpstream() : undefined;
const gateway = await startBenchGateway(ENTRY, { dataDir, database, workers: WORKERS }).catch(async (error) => {
  await Promise.all([upstream, normalUpstream].filter(Boolean).map((u) => stop(u.child)));
  throw error;
});
let exitCode = 0;
try {
  const { key, usage } = await prepareGateway(gateway.url, upstream.url, normalUpstream?.url);
  if (SCENARIO === 'streams') {
    await runStreams(gateway, upstream, normalUpstream, key);
  } else {
    await runRelay(gateway, upstream, key, usage, database);
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await Promise.all([gateway, upstream, normalUpstream].filter(Boolean).map((p) => stop(p.child)));
  await database.drop().catch((error) => console.error(`dropping the bench database: ${error.message}`));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
