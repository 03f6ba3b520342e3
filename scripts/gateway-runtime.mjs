import { spawnSync } from 'node:child_process';

// How the gateway process is started by `npm start` and by `npm run bench` (so the bench measures what
// users run). Memory, measured with `npm run bench` on 2 cores: under load most of the V8 heap is garbage
// in the old generation (requests that outlive two young collections are promoted and die there), which
// V8 lets grow to several times the live data before a full collection. A fixed 20 % growing factor and
// 4 MB semi-spaces keep a busy gateway near 155 MB instead of 220-270 MB with Node's defaults, for 10-15 %
// more CPU per request; --optimize-for-size reaches ~145 MB but costs 50-80 % more CPU and misses the
// latency targets. glibc keeps freed native memory in its arenas; capping them takes 10-20 MB off.
const WANTED_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=20'];

/**
 * The flags this Node accepts: V8 flags come and go between majors, and an unknown one stops Node at start
 * (`bad option`), so each is tried once (a few tens of milliseconds) and a refused one is left out.
 */
export const GATEWAY_NODE_FLAGS = WANTED_FLAGS.filter(
  (flag) => spawnSync(process.execPath, [flag, '-e', '0'], { stdio: 'ignore' }).status === 0,
);

/** glibc malloc tuning, applied only where the operator has not set the variable. */
export const GATEWAY_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export function gatewayEnv(env) {
  return { ...GATEWAY_MALLOC_ENV, ...env };
}
