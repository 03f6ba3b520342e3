// The workers scenario of `npm run bench` (`npm run bench -- workers`): throughput of one gateway process
// against WORKERS=2 (Node's cluster, both cores) on the chosen database. The default scenario's load (Node
// clients and a Node fake provider) takes about a core of its own, so on a 2-core machine it cannot show
// what a second worker adds. This one offers the load with wrk (C, ~10 us of CPU per request) to an nginx
// that answers the chat completion from its config, so nearly all the CPU is left to the gateway and its
// database. Needs `wrk` and `nginx` on PATH (Debian: apt-get install -y wrk nginx-light).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase, serverCpuDelta } from './database.mjs';
import { MODEL } from './models.mjs';
import { availableParallelism } from 'node:os';
import { cpuMs, freePort, machineBusyMs, processTree, startBenchGateway, stop, treeCpuMs, treeRssMb } from './processes.mjs';
import { combineRounds, roundOrder, roundRatios } from './rounds.mjs';
import { prepareGateway } from './setup.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 50;
const WORKER_COUNTS = (process.env.BENCH_WORKER_COUNTS ?? '1,2').split(',').map(Number);
/**
 * Each worker count is measured this many times, the counts in their order, then reversed, and so on: on a
 * shared host the machine drifts between runs a minute apart by about as much as a second worker adds (one
 * run's two rounds read 1.15x and 1.33x), and with one fixed order a steady drift always landed on the same
 * count. Alternating cancels it; the figures are the rounds' together.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_WORKER_ROUNDS ?? 2));
/**
 * Warm-up before each measurement (JIT, pools, caches), per worker: every worker process compiles its own hot
 * code from its share of the requests. A 3 s warm-up left WORKERS=2 still compiling (TurboFan, and functions
 * still in the baseline tier) through the measured run: 0.80 ms of CPU per request against 0.72 after 15 s,
 * while one worker read within 3 % either way. Sliced 2 s readings level off after about 10 s at WORKERS=2.
 */
const WARMUP_SECONDS_PER_WORKER = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);

/** The provider's answer: what the default scenario's fake provider sends for a JSON call. */
const ANSWER = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the bench.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
});

const missing = ['wrk', 'nginx'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);

/** nginx on a free port in its own prefix directory, one process, answering every POST with ANSWER. */
async function startNginx(dir) {
  const port = await freePort();
  // nginx string literals take single quotes; the answer has none.
  const conf = `daemon off; master_process off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  keepalive_requests 10000000; keepalive_timeout 120s;
  server { listen 127.0.0.1:${port}; location / { default_type application/json; return 200 '${ANSWER}'; } }
}`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    if (
      await fetch(`${url}/v1/models`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('nginx did not start');
}

/** wrk's POST of the default scenario's JSON request, keyed by BENCH_KEY. */
function writeWrkScript(dir) {
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say hello to the bench.' }], max_tokens: 64 });
  const path = join(dir, 'chat.lua');
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = [[${body}]]\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_KEY")\n`,
  );
  return path;
}

/**
 * Runs wrk (one thread) against the relay; returns requests/s and failures as wrk counts them. Asynchronous:
 * a blocked event loop would keep this process's own idle keep-alive sockets, which the gateway closes
 * meanwhile, and the next console call would be sent on a closed one.
 */
function wrk(url, script, key, seconds) {
  const child = spawn('wrk', ['-t1', `-c${CONCURRENCY}`, `-d${seconds}s`, '-s', script, `${url}/v1/chat/completions`], {
    env: { ...process.env, BENCH_KEY: key },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk failed: ${err}`));
      const number = (pattern) => Number(pattern.exec(out)?.[1] ?? 0);
      const requests = number(/(\d+) requests in/);
      const failed = number(/Non-2xx or 3xx responses: (\d+)/) + number(/Socket errors: connect (\d+)/) + number(/read (\d+), write/);
      resolve({ perSecond: number(/Requests\/sec:\s+([\d.]+)/), requests, failed });
    });
  });
}

/** CPU ms so far of each process of the gateway, keyed by pid, the primary first. */
function processCpuMs(pid) {
  return new Map(processTree(pid).map((p) => [p, cpuMs(p)]));
}

/** One gateway with `workers` processes on a fresh database: its throughput, CPU per request and RSS. */
async function measure(entry, workers, upstreamUrl, script) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const database = await benchDatabase(dataDir);
  const gateway = await startBenchGateway(entry, { dataDir, database, workers: String(workers) });
  try {
    const { key, usage } = await prepareGateway(gateway.url, upstreamUrl);
    await wrk(gateway.url, script, key, WARMUP_SECONDS_PER_WORKER * workers);
    const cpuBefore = treeCpuMs(gateway.child.pid);
    const processesBefore = processCpuMs(gateway.child.pid);
    const serverBefore = database.serverCpuMs();
    const machineBefore = machineBusyMs();
    const run = await wrk(gateway.url, script, key, SECONDS);
    const perRequest = (ms) => ms / Math.max(1, run.requests);
    const machineCpuPerRequest = perRequest(machineBusyMs() - machineBefore);
    const cpuPerRequest = perRequest(treeCpuMs(gateway.child.pid) - cpuBefore);
    const processesAfter = processCpuMs(gateway.child.pid);
    const perProcess = [...processesAfter].map(([pid, ms]) => perRequest(ms - (processesBefore.get(pid) ?? 0)));
    const databaseCpuPerRequest = perRequest(serverCpuDelta(serverBefore, database.serverCpuMs()));
    const rss = treeRssMb(gateway.child.pid);
    const billed = await usage();
    return {
      workers,
      label: database.label,
      ...run,
      cpuPerRequest,
      perProcess,
      databaseCpuPerRequest,
      machineCpuPerRequest,
      rss,
      billed: billed.request_count,
    };
  } finally {
    await stop(gateway.child);
    await database.drop().catch((error) => console.error(`dropping the bench database: ${error.message}`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runWorkers(entry) {
  if (missing.length > 0) {
    console.error(`the workers scenario needs ${missing.join(' and ')} (Debian: apt-get install -y wrk nginx-light)`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-nginx-'));
  const nginx = await startNginx(dir);
  try {
    const script = writeWrkScript(dir);
    const direct = await wrk(nginx.url, script, 'sk-bench-upstream', 3);
    const runs = new Map(WORKER_COUNTS.map((workers) => [workers, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of roundOrder(WORKER_COUNTS, round)) {
        console.log(`round ${round + 1} of ${ROUNDS}, WORKERS=${workers}: ${SECONDS} s at c=${CONCURRENCY} ...`);
        runs.get(workers).push(await measure(entry, workers, nginx.url, script));
      }
    }
    const results = [...runs.values()].map(combineRounds);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log('');
    console.log(
      `database: ${results[0].label}; provider: nginx (${direct.perSecond.toFixed(0)} req/s called directly); load average ${load}`,
    );
    const row = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 10 : 16)).join(''));
    row(['workers', 'req/s (c=50)', 'x one worker', 'CPU ms/request', 'DB CPU ms/req', 'machine ms/req', 'RSS MB', 'failed / billed']);
    const one = results.find((r) => r.workers === 1);
    for (const r of results)
      row([
        r.workers,
        r.perSecond.toFixed(0),
        one ? (r.perSecond / one.perSecond).toFixed(2) : '',
        r.cpuPerRequest.toFixed(3),
        Number.isNaN(r.databaseCpuPerRequest) ? '-' : r.databaseCpuPerRequest.toFixed(3),
        r.machineCpuPerRequest.toFixed(3),
        r.rss.toFixed(0),
        `${r.failed} / ${r.billed}`,
      ]);
    // Where the gateway's CPU goes: with workers, the primary (accepting and handing out connections, shared
    // counters) and each worker apart, so a cost that only a cluster pays shows up in its process.
    for (const r of results)
      if (r.perProcess.length > 1)
        console.log(
          `WORKERS=${r.workers} CPU ms/request by process: primary ${r.perProcess[0].toFixed(3)}, workers ${r.perProcess
            .slice(1)
            .map((ms) => ms.toFixed(3))
            .join(' + ')}`,
        );
    const most = results.reduce((a, b) => (b.workers > a.workers ? b : a));
    if (one && most !== one && ROUNDS > 1) {
      const ratios = roundRatios(runs.get(most.workers), runs.get(1));
      console.log(`WORKERS=${most.workers} x one worker, round by round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    }
    if (one && most !== one) {
      // What all cores could serve at most, at the machine CPU per request the most workers spent. The database
      // server, wrk and nginx share the cores with the gateway: when one worker already keeps the machine mostly
      // busy, this ceiling, not the gateway, bounds what more workers add.
      const cores = availableParallelism();
      const ceiling = (cores * 1000) / most.machineCpuPerRequest;
      console.log('');
      console.log(
        `machine ceiling at WORKERS=${most.workers}: ${cores} cores / ${most.machineCpuPerRequest.toFixed(3)} ms per request = ${ceiling.toFixed(0)} req/s (${(ceiling / one.perSecond).toFixed(2)} x one worker); reached ${((100 * most.perSecond) / ceiling).toFixed(0)} %; one worker keeps the machine ${((100 * one.perSecond * one.machineCpuPerRequest) / (cores * 1000)).toFixed(0)} % busy`,
      );
      console.log(`${most.perSecond >= 1.5 * one.perSecond ? 'PASS' : 'MISS'}  WORKERS=${most.workers} >= 1.5 x one worker`);
    }
    return results.every((r) => r.failed === 0 && r.billed > 0) ? 0 : 1;
  } finally {
    await stop(nginx.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
