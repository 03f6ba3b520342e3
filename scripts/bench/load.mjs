// Load generation with undici keep-alive pools: one request shape, timed to the full answer (JSON) or
// to the first body chunk (stream).
import { Pool } from 'undici';
import { MODEL } from './setup.mjs';

export function target(origin, path, key, connections) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const json = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say hello to the bench.' }], max_tokens: 64 });
  const stream = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: 'Say hello to the bench.' }],
    max_tokens: 64,
    stream: true,
    stream_options: { include_usage: true },
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

  /** ms until the whole JSON answer was read. */
  async function callJson() {
    const started = performance.now();
    const res = await pool.request({ path, method: 'POST', headers, body: json });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${origin}${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return performance.now() - started;
  }

  /** ms until the first body byte of the stream (the rest is drained untimed). */
  async function callStream() {
    const started = performance.now();
    const res = await pool.request({ path, method: 'POST', headers, body: stream });
    let first;
    for await (const chunk of res.body) {
      first ??= performance.now() - started;
      void chunk;
    }
    if (res.statusCode !== 200) throw new Error(`${origin}${path}: stream ${res.statusCode}`);
    return first ?? performance.now() - started;
  }

  return { callJson, callStream, close: () => pool.close() };
}

export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Alternates direct and gateway calls so that drift (other load on the machine) hits both alike. */
export async function sideBySide(direct, gateway, call, warmup, count) {
  for (let i = 0; i < warmup; i++) {
    await direct[call]();
    await gateway[call]();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < count; i++) {
    a.push(await direct[call]());
    b.push(await gateway[call]());
  }
  return { direct: a, gateway: b };
}

/** Completed requests per second with `concurrency` callers looping for `seconds`. */
export async function throughput(t, concurrency, seconds) {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        await t.callJson();
        done++;
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { done, errors, perSecond: done / ((performance.now() - started) / 1000) };
}

/**
 * Direct and gateway throughput in alternating slices (direct, gateway, direct, ...), so that drift in the
 * machine's speed (other tenants of a shared VM) hits both alike, as sideBySide does for latency. `around`
 * wraps each gateway slice (the caller reads the gateway's CPU time there).
 */
export async function interleavedThroughput(direct, gateway, concurrency, seconds, slices, around) {
  const total = { direct: { done: 0, errors: 0, ms: 0 }, gateway: { done: 0, errors: 0, ms: 0 } };
  const slice = async (t, into) => {
    const started = performance.now();
    const r = await throughput(t, concurrency, seconds / slices);
    into.done += r.done;
    into.errors += r.errors;
    into.ms += performance.now() - started;
  };
  for (let i = 0; i < slices; i++) {
    await slice(direct, total.direct);
    await around(() => slice(gateway, total.gateway));
  }
  const rate = (side) => ({ done: side.done, errors: side.errors, perSecond: side.done / (side.ms / 1000) });
  return { direct: rate(total.direct), gateway: rate(total.gateway) };
}
