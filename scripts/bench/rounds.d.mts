/** One measured run of a worker count (scripts/bench/workers.mjs's measure()). */
export interface WorkerRun {
  workers: number;
  label: string;
  perSecond: number;
  requests: number;
  failed: number;
  billed: number;
  rss: number;
  cpuPerRequest: number;
  perProcess: number[];
  databaseCpuPerRequest: number;
  machineCpuPerRequest: number;
}
export function roundOrder(counts: number[], round: number): number[];
export function combineRounds(rounds: WorkerRun[]): WorkerRun;
export function roundRatios(runs: WorkerRun[], baseline: WorkerRun[]): number[];
