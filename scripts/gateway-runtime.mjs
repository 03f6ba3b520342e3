// How the gateway process is started by `npm start` and by `npm run bench` (so the bench measures what
// users run). Memory: V8's young generation grows to 3 x 16 MB semi-spaces, and glibc keeps freed native
// memory in its arenas; capping both takes 20-40 MB off the resident size. Under load most of the rest is
// garbage in the old generation: requests that outlive two young collections are promoted and die there,
// and V8 lets the old generation grow to several times the live data before a full collection. A fixed
// 25 % growing factor keeps a busy gateway near 160-170 MB instead of 220-270 MB for about 10 % more CPU
// (measured with `npm run bench` on 2 cores); --optimize-for-size reaches ~145 MB but costs 50-80 % more
// CPU and misses the latency targets. Semi-spaces of 8 MB cost no visible CPU, 4 MB about 6 % more GC time.
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=25'];

/** glibc malloc tuning, applied only where the operator has not set the variable. */
export const GATEWAY_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export function gatewayEnv(env) {
  return { ...GATEWAY_MALLOC_ENV, ...env };
}
