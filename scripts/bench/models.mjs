// Model names the bench's gateway is set up with, shared by the fake provider and the load generators.
export const MODEL = 'bench-model';
/** Streams one chunk every BENCH_CHUNK_MS (the streams scenario). */
export const SLOW_MODEL = 'bench-slow';
/** Streams as fast as the gateway reads (the non-reading clients phase). */
export const FLOOD_MODEL = 'bench-flood';
