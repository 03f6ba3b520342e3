// How the gateway process is started by `npm start` and by `npm run bench` (so the bench measures what
// users run). Memory: V8's young generation grows to 3 x 16 MB semi-spaces, and glibc keeps freed native
// memory (the tokenizer's parse, for one) in its arenas; capping both takes 20-40 MB off the resident size.
// Measured: semi-spaces of 8 MB cost no visible CPU, 4 MB about 6 % more GC time for no further saving;
// --optimize-for-size would bring a busy gateway under 150 MB but costs 35-60 % more CPU per request.
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=8'];

/** glibc malloc tuning, applied only where the operator has not set the variable. */
export const GATEWAY_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export function gatewayEnv(env) {
  return { ...GATEWAY_MALLOC_ENV, ...env };
}
