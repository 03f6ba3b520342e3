import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { ConsoleProviders, Spin, Toast, loadStatus, statusStore } from '@console/kit';
import { ConsoleLayout } from './layout/ConsoleLayout';
import { AppRoutes } from './routes/AppRoutes';

/** Routes wait for one fresh /api/status: the setup redirect and the sidebar flags depend on it. */
function useInitialStatus(): boolean {
  const { t } = useTranslation('shell');
  const [ready, setReady] = useState(false);
  useEffect(() => {
    loadStatus()
      .catch(() => {
        const cached = Object.keys(statusStore.get()).length > 0;
        Toast.error(cached ? t('status.loadFailed') : t('status.unreachable'));
      })
      .finally(() => setReady(true));
  }, [t]);
  return ready;
}

export function App() {
  const ready = useInitialStatus();
  return (
    <ConsoleProviders>
      <BrowserRouter>
        {ready ? (
          <ConsoleLayout>
            <AppRoutes />
          </ConsoleLayout>
        ) : (
          <div style={{ height: '100vh', display: 'grid', placeItems: 'center' }}>
            <Spin size="large" />
          </div>
        )}
      </BrowserRouter>
    </ConsoleProviders>
  );
}
