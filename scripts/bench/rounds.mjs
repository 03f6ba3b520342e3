// How the workers bench measures each worker count in rounds (scripts/bench/workers.mjs): the order of each
// round, the rounds of one count as one result, and each round's ratio to one worker.

/** The counts in their order in even rounds (0, 2, ...) and reversed in odd ones, so a steady drift cancels. */
export function roundOrder(counts, round) {
  return round % 2 === 0 ? counts : [...counts].reverse();
}

/**
 * One worker count's rounds as one result: throughput averaged, failures and billed requests summed, RSS the
 * highest, and the per-request figures (CPU, database, machine, each process's) weighted by each round's
 * requests. A figure a database does not report (NaN: SQLite has no server) stays NaN.
 */
export function combineRounds(rounds) {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const sum = (pick) => rounds.reduce((total, r) => total + pick(r), 0);
  const weighted = (pick) => sum((r) => pick(r) * r.requests) / Math.max(1, requests);
  return {
    ...rounds[0],
    requests,
    perSecond: sum((r) => r.perSecond) / rounds.length,
    failed: sum((r) => r.failed),
    billed: sum((r) => r.billed),
    rss: Math.max(...rounds.map((r) => r.rss)),
    cpuPerRequest: weighted((r) => r.cpuPerRequest),
    perProcess: rounds[0].perProcess.map((_, i) => weighted((r) => r.perProcess[i] ?? 0)),
    databaseCpuPerRequest: weighted((r) => r.databaseCpuPerRequest),
    machineCpuPerRequest: weighted((r) => r.machineCpuPerRequest),
  };
}

/** Throughput of each round of `runs` over the same round of `baseline` (one worker). */
export function roundRatios(runs, baseline) {
  return runs.map((run, i) => run.perSecond / baseline[i].perSecond);
}
