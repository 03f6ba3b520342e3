import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Empty, useAuth } from '@console/kit';
import type { Access } from './route-table';

/** Protected pages go to /login when no user is stored locally; admin pages also need role >= 10. */
export function Guard({ access, children }: { access: Access; children: ReactNode }) {
  const { isLoggedIn, isAdmin } = useAuth();
  const location = useLocation();
  const { t } = useTranslation('shell');
  if (access === 'public') return children;
  if (!isLoggedIn) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  if (access === 'admin' && !isAdmin) return <Empty title={t('forbidden')} style={{ padding: 48 }} />;
  return children;
}
