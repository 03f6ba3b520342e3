import cluster from 'node:cluster';

/** An invalidation passed between the workers of one cluster through the primary. */
export interface ClusterBroadcast {
  type: 'gw:publish';
  channel: string;
  message: string;
}

export function isClusterBroadcast(value: unknown): value is ClusterBroadcast {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'gw:publish';
}

/**
 * The workers of one WORKERS=N gateway tell each other about changes over the cluster's IPC channel when
 * Redis cannot (not configured, or down): the primary passes each message on to the other workers. Outside
 * a cluster worker this does nothing, and other machines still converge at the next SYNC_FREQUENCY reload.
 */
export const clusterBus = {
  get active(): boolean {
    return cluster.isWorker && typeof process.send === 'function';
  },

  send(channel: string, message: string): void {
    if (!this.active) return;
    const broadcast: ClusterBroadcast = { type: 'gw:publish', channel, message };
    process.send!(broadcast);
  },

  listen(deliver: (channel: string, message: string) => void): void {
    if (!this.active) return;
    process.on('message', (value: unknown) => {
      if (isClusterBroadcast(value)) deliver(value.channel, value.message);
    });
  },
};

/** A worker asks the primary to run a shared operation (a rate-limit counter) and waits for the answer. */
export interface ClusterCall {
  type: 'gw:call';
  id: number;
  op: string;
  args: unknown[];
}

export interface ClusterReply {
  type: 'gw:reply';
  id: number;
  ok: boolean;
  result?: unknown;
}

export function isClusterCall(value: unknown): value is ClusterCall {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'gw:call';
}

function isClusterReply(value: unknown): value is ClusterReply {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'gw:reply';
}

const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let nextCallId = 0;
let listeningForReplies = false;

/**
 * Runs `op` in the cluster primary, where the counters every worker shares live (without Redis the workers of
 * one machine still count one limit, as one process would). Rejects outside a cluster worker, on the
 * primary's error, or after `timeoutMs`: callers then count in their own memory.
 */
export function callPrimary<T>(op: string, args: unknown[], timeoutMs = 1000): Promise<T> {
  if (!clusterBus.active) return Promise.reject(new Error('not a cluster worker'));
  if (!listeningForReplies) {
    listeningForReplies = true;
    process.on('message', (value: unknown) => {
      if (!isClusterReply(value)) return;
      const call = pending.get(value.id);
      if (!call) return;
      pending.delete(value.id);
      clearTimeout(call.timer);
      if (value.ok) call.resolve(value.result);
      else call.reject(new Error(`cluster primary: ${String(value.result)}`));
    });
  }
  const id = ++nextCallId;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`cluster primary did not answer ${op} in ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
    const call: ClusterCall = { type: 'gw:call', id, op, args };
    process.send!(call);
  });
}
