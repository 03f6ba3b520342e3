import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { type AppConfig, type ClusterReply, isClusterBroadcast, isClusterCall } from '@gw/core';
import type { Logger as Pino } from 'pino';
import { holdPortWhileStarting } from '../startup-probe.js';
import { type DrainWorker, isWorkerListening } from './messages.js';
import { migrateOnce } from './migrate-once.js';
import { sharedCounters } from './shared-counters.js';
import { workerExecArgv } from './worker-exec-argv.js';

/** More crashes than this within CRASH_WINDOW_MS is a crash loop: the gateway stops instead of restarting. */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;

/**
 * WORKERS > 1: this process is the primary of Node's cluster. It migrates the database, forks the workers
 * (each a whole gateway; they share the listening port, the kernel hands connections round), prints one
 * "gateway listening" line once all of them listen, restarts a worker that crashes, and on SIGTERM/SIGINT
 * asks every worker to drain (their own graceful shutdown: in-flight requests settle, buffers flush), then
 * exits with the worst exit code. A second signal is passed on too, which makes the workers exit at once.
 */
export async function runClusterPrimary(config: AppConfig, logger: Pino): Promise<void> {
  const probe = config.http.port === 0 ? undefined : await holdPortWhileStarting(config.http.port, config.http.host);
  let applied: number;
  try {
    applied = await migrateOnce(config);
  } finally {
    await probe?.close();
  }
  logger.info(`cluster primary ${process.pid}: ${applied} migration(s) applied; starting ${config.workers} workers`);

  const counters = sharedCounters();
  const listening = new Set<Worker>();
  let announced = false;
  let stopping = false;
  let exitCode = 0;

  const live = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if (isClusterCall(message)) {
        void counters.run(message).then(
          (result) => worker.isConnected() && worker.send({ type: 'gw:reply', id: message.id, ok: true, result } satisfies ClusterReply),
          (error: Error) =>
            worker.isConnected() &&
            worker.send({ type: 'gw:reply', id: message.id, ok: false, result: error.message } satisfies ClusterReply),
        );
        return;
      }
      if (isClusterBroadcast(message)) {
        // A change one worker made (without Redis, or while it is down): the others drop their cached copy.
        for (const other of live()) if (other !== worker && other.isConnected()) other.send(message);
        return;
      }
      if (!isWorkerListening(message)) return;
      listening.add(worker);
      if (!announced && listening.size === config.workers) {
        announced = true;
        logger.info(
          `gateway listening on ${message.url} (database: ${config.database.type}${config.redis ? ', redis' : ''}, workers: ${config.workers})`,
        );
      }
    });
  };

  const drainAll = () => {
    const drain: DrainWorker = { type: 'gw:drain' };
    for (const worker of live()) if (worker.isConnected()) worker.send(drain);
  };

  const crashes: number[] = [];
  cluster.on('exit', (worker, code, signal) => {
    const wasListening = listening.delete(worker);
    if (code !== 0 && code !== null) exitCode = Math.max(exitCode, code);
    if (!stopping) {
      const now = Date.now();
      crashes.push(now);
      while (crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
      if (wasListening && crashes.length <= MAX_CRASHES) {
        logger.error(`worker ${worker.process.pid} died (${signal ?? `exit ${code}`}): starting a new one`);
        fork();
        return;
      }
      // Failing at start (bad schema, port taken) or crashing again and again: stop rather than loop.
      logger.error(
        `worker ${worker.process.pid} died (${signal ?? `exit ${code}`}) ${wasListening ? `after ${crashes.length} crashes within a minute` : 'before listening'}: stopping`,
      );
      stopping = true;
      exitCode = Math.max(exitCode, 1);
      drainAll();
    }
    if (live().length === 0) {
      counters.stop();
      logger.info(`cluster primary ${process.pid}: every worker stopped`);
      logger.flush();
      process.exit(exitCode);
    }
  });

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    stopping = true;
    if (++signals === 1) {
      logger.info(`${signal} received: draining ${live().length} workers`);
      drainAll();
      return;
    }
    // A second signal, as without workers, means "exit now": a draining worker exits on its next SIGTERM.
    logger.warn(`${signal} again: stopping the workers now`);
    for (const worker of live()) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, config.workers, availableParallelism(), process.env.NODE_OPTIONS) });
  for (let i = 0; i < config.workers; i++) fork();
}
