/** What a worker tells the primary over the cluster's IPC channel. */
export interface WorkerListening {
  type: 'gw:listening';
  url: string;
}

/** What the primary tells a worker: finish what is in flight and exit (the worker's graceful shutdown). */
export interface DrainWorker {
  type: 'gw:drain';
}

export function isWorkerListening(message: unknown): message is WorkerListening {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'gw:listening';
}

export function isDrainWorker(message: unknown): message is DrainWorker {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'gw:drain';
}
