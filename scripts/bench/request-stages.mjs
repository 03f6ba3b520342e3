// Where a normal (non-stream) relay request spends its time inside the gateway, next to the event loop's
// delay: load it into the gateway with BENCH_NODE_ARGS='--import ./scripts/bench/request-stages.mjs'
// (relative to the repository) and read one JSON line every 2 s from BENCH_STAGES_OUT
// (default: <tmpdir>/gw-bench-stages-<pid>.jsonl). Stages, p50 in ms: `toUpstream` from the request's
// arrival to the upstream call (auth, reservation), `upstream` until the provider's response head,
// `afterUpstream` until the answer is written (settle, log). The upstream call is tied to the request that
// started last, so read it while requests arrive one at a time (the streams bench's probes, once every
// stream is open); stream requests are left out.
import diagnostics from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const OUT = process.env.BENCH_STAGES_OUT ?? join(tmpdir(), `gw-bench-stages-${process.pid}.jsonl`);
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const samples = { toUpstream: [], upstream: [], afterUpstream: [] };
const timings = new WeakMap();
let latest;

diagnostics.subscribe('http.server.request.start', ({ request }) => {
  latest = { start: performance.now() };
  timings.set(request, latest);
});
// The gateway's upstream calls (libs/upstream's channels, whichever HTTP client carries the call).
diagnostics.subscribe('gw:upstream:call', ({ request }) => {
  const timing = latest;
  latest = undefined;
  if (!timing) return;
  timing.create = performance.now();
  timing.stream = String(request.body ?? '').includes('"stream":true');
  timings.set(request, timing);
});
diagnostics.subscribe('gw:upstream:headers', ({ request }) => {
  const timing = timings.get(request);
  if (timing) timing.headers = performance.now();
});
diagnostics.subscribe('http.server.response.finish', ({ request }) => {
  const timing = timings.get(request);
  if (!timing?.headers || timing.stream) return;
  samples.toUpstream.push(timing.create - timing.start);
  samples.upstream.push(timing.headers - timing.create);
  samples.afterUpstream.push(performance.now() - timing.headers);
});

const p50 = (values) => (values.length ? Number([...values].sort((a, b) => a - b)[values.length >> 1].toFixed(2)) : null);
setInterval(() => {
  const line = {
    at: new Date().toISOString().slice(11, 19),
    requests: samples.upstream.length,
    toUpstream: p50(samples.toUpstream),
    upstream: p50(samples.upstream),
    afterUpstream: p50(samples.afterUpstream),
    loopDelayP50: Number((loopDelay.percentile(50) / 1e6).toFixed(2)),
    loopDelayP99: Number((loopDelay.percentile(99) / 1e6).toFixed(2)),
  };
  appendFileSync(OUT, `${JSON.stringify(line)}\n`);
  loopDelay.reset();
  for (const key of Object.keys(samples)) samples[key] = [];
}, 2000).unref();
