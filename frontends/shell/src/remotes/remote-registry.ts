import type { ComponentType } from 'react';
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { api, type RemoteAppProps, type RemoteName } from '@console/kit';

type RemoteUrls = Record<RemoteName, string>;

const federationName = (remote: RemoteName) => `console_${remote}`;

let urlsPromise: Promise<RemoteUrls> | null = null;
const appCache = new Map<RemoteName, Promise<ComponentType<RemoteAppProps>>>();

/** Dev builds point at the remotes' own dev servers; a built shell asks the gateway where each remote lives. */
function fetchRemoteUrls(): Promise<RemoteUrls> {
  const devRemotes = process.env.CONSOLE_DEV_REMOTES;
  if (devRemotes) return Promise.resolve(JSON.parse(devRemotes) as RemoteUrls);
  return api.get<RemoteUrls>('/api/console/remotes', { quiet: true });
}

async function ensureRegistered(remote: RemoteName, force: boolean): Promise<void> {
  urlsPromise ??= fetchRemoteUrls().catch((error: unknown) => {
    urlsPromise = null;
    throw error;
  });
  const urls = await urlsPromise;
  const entry = new URL(urls[remote], window.location.origin).href;
  // force drops a remote whose earlier load failed, so a retry fetches its manifest again.
  registerRemotes([{ name: federationName(remote), entry }], { force });
}

async function importRemoteApp(remote: RemoteName, force: boolean): Promise<ComponentType<RemoteAppProps>> {
  await ensureRegistered(remote, force);
  const module = await loadRemote<{ default: ComponentType<RemoteAppProps> }>(`${federationName(remote)}/App`);
  if (!module?.default) throw new Error(`remote ${remote} did not expose ./App`);
  return module.default;
}

/** One load per remote, shared by all its routes; a failure is forgotten so the next attempt starts over. */
export function loadRemoteApp(remote: RemoteName, retry = false): Promise<ComponentType<RemoteAppProps>> {
  const cached = appCache.get(remote);
  if (cached && !retry) return cached;
  const loading = importRemoteApp(remote, retry).catch((error: unknown) => {
    appCache.delete(remote);
    throw error;
  });
  appCache.set(remote, loading);
  return loading;
}
