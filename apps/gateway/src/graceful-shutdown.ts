import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { ReadinessService } from '@gw/ops';
import type { Gateway } from './bootstrap.js';

export interface ShutdownOptions {
  /** Longest wait for requests in flight (SHUTDOWN_TIMEOUT); streams still open after it are cut. */
  timeoutMs: number;
  /** How the process ends (injected so the sequence can be driven in a test). */
  exit: (code: number) => void;
  signals?: NodeJS.Signals[];
}

/** After the deadline, time left for what the cut streams still settle and for the final flushes. */
const AFTER_CUT_MS = 5000;
/** Keep-alive connections that turn idle during the drain are closed at this pace. */
const IDLE_SWEEP_MS = 250;

/**
 * The graceful stop. First signal: readiness goes false, the listener closes (no new connections),
 * requests in flight (streams included) run to completion up to the deadline, then the application
 * closes: the relay waits for every call to settle or refund, then log rows and counters are flushed,
 * then the database closes. A second signal exits at once.
 */
export function installGracefulShutdown(gateway: Gateway, options: ShutdownOptions): () => Promise<void> {
  const logger = new Logger('Shutdown');
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let stopping: Promise<void> | undefined;

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting now`);
      options.exit(signal === 'SIGINT' ? 130 : 143);
      return;
    }
    logger.log(`${signal} received: draining (up to ${Math.round(options.timeoutMs / 1000)} s)`);
    stopping = drain();
  };

  async function drain(): Promise<void> {
    const started = Date.now();
    const { app } = gateway;
    app.get(ReadinessService).markDraining();
    const server = app.getHttpServer() as Server;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Not a periodic job of the app: it exists only while this drain waits for the server to close.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => (deadline = setTimeout(() => resolve(true), options.timeoutMs))),
    ]);
    clearTimeout(deadline);
    clearInterval(sweep);
    if (timedOut) {
      logger.warn('deadline reached: closing the connections still open');
      server.closeAllConnections();
    }
    const hardStop = setTimeout(
      () => {
        logger.error('shutdown hooks did not finish in time: exiting');
        options.exit(1);
      },
      AFTER_CUT_MS + (timedOut ? 0 : options.timeoutMs),
    );
    hardStop.unref();
    try {
      await gateway.close();
      clearTimeout(hardStop);
      logger.log(`stopped cleanly in ${Date.now() - started} ms`);
      options.exit(0);
    } catch (error) {
      clearTimeout(hardStop);
      logger.error(`shutdown failed: ${(error as Error).stack ?? String(error)}`);
      options.exit(1);
    }
  }

  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    return stopping ?? Promise.resolve();
  };
}
