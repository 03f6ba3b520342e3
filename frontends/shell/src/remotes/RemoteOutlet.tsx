import { useEffect, useState, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { Spin, type RemoteAppProps, type RemoteName } from '@console/kit';
import { loadRemoteApp } from './remote-registry';
import { RemoteErrorBoundary } from './RemoteErrorBoundary';
import { RemoteErrorPanel } from './RemoteErrorPanel';

interface RemoteOutletProps {
  remote: RemoteName;
  page: string;
}

type LoadState = { kind: 'loading' } | { kind: 'ready'; App: ComponentType<RemoteAppProps> } | { kind: 'failed'; error: Error };

/** Mounts one remote's page inside the layout; if the remote cannot load, only this area shows an error. */
export function RemoteOutlet({ remote, page }: RemoteOutletProps) {
  const { t } = useTranslation('shell');
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<LoadState>({ kind: 'loading' });

  useEffect(() => {
    let active = true;
    setState((current) => (current.kind === 'ready' && attempt === 0 ? current : { kind: 'loading' }));
    loadRemoteApp(remote, attempt > 0).then(
      (App) => active && setState({ kind: 'ready', App }),
      (error: unknown) => active && setState({ kind: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      active = false;
    };
  }, [remote, attempt]);

  const retry = () => setAttempt((n) => n + 1);

  if (state.kind === 'loading') {
    return (
      <div style={{ padding: 48, textAlign: 'center' }}>
        <Spin size="large" tip={t('remote.loading')} />
      </div>
    );
  }
  if (state.kind === 'failed') return <RemoteErrorPanel remote={remote} error={state.error} onRetry={retry} />;
  const { App } = state;
  return (
    <RemoteErrorBoundary key={`${remote}:${attempt}`} remote={remote} onRetry={retry}>
      <App page={page} />
    </RemoteErrorBoundary>
  );
}
