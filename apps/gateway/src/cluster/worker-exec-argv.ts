/**
 * The Node flags a cluster worker starts with: the primary's own, plus `--single-threaded-gc` when there is a
 * worker for every core. V8 normally marks, sweeps and scavenges on helper threads beside the JavaScript
 * thread, which is free when other cores are idle; with one busy worker per core those helpers only take the
 * core of a sibling worker, and the hand-offs between them cost more than the collection itself. Measured
 * with `npm run bench -- workers` on 2 cores at WORKERS=2: on MariaDB + Redis 0.64 ms of gateway CPU per request
 * against 0.72 (1.26x one worker against 1.12x), on SQLite 0.67-0.73 against 0.72-0.77.
 * An operator who set any GC threading flag (in the command or NODE_OPTIONS) keeps their choice.
 */
export function workerExecArgv(primaryArgv: readonly string[], workers: number, cores: number, nodeOptions = ''): string[] {
  const chosen = [...primaryArgv, ...nodeOptions.split(/\s+/)].some((flag) =>
    /^--(no-)?(single-threaded-gc|parallel-|concurrent-)/.test(flag.replaceAll('_', '-')),
  );
  if (chosen || workers < cores) return [...primaryArgv];
  return [...primaryArgv, '--single-threaded-gc'];
}
