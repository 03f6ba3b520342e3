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
