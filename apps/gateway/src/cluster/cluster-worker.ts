import type { Gateway } from '../bootstrap.js';
import { isDrainWorker, type WorkerListening } from './messages.js';

/**
 * A cluster worker's part. The primary decides when to stop: a terminal's Ctrl-C reaches the whole process
 * group, so SIGINT is left to the primary, which asks each worker to drain over IPC rather than by a signal,
 * because a service manager may already have sent SIGTERM to every process of the group (systemd does), and
 * a second SIGTERM means "exit now". Either way the drain starts once. The primary also hears when this worker
 * listens, so it can announce the gateway once all of them do.
 */
export function joinCluster(gateway: Gateway): void {
  let signalled = false;
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => {
    signalled = true;
  });
  process.on('message', (message: unknown) => {
    if (!isDrainWorker(message) || signalled) return;
    // The graceful shutdown listens for SIGTERM: starting it the same way keeps one drain sequence.
    process.emit('SIGTERM', 'SIGTERM');
  });
  const listening: WorkerListening = { type: 'gw:listening', url: gateway.url };
  process.send?.(listening);
}
