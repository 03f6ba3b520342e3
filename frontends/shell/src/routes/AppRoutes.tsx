import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { Spin, useStatus } from '@console/kit';
import { RemoteOutlet } from '../remotes/RemoteOutlet';
import { REMOTE_ROUTES } from './route-table';
import { Guard } from './guards';
import { HomePage } from '../pages/home/HomePage';
import { LoginPage } from '../pages/login/LoginPage';
import { RegisterPage } from '../pages/register/RegisterPage';
import { ResetRequestPage } from '../pages/reset/ResetRequestPage';
import { ResetConfirmPage } from '../pages/reset/ResetConfirmPage';
import { OAuthCallbackPage } from '../pages/oauth/OAuthCallbackPage';
import { SetupPage } from '../pages/setup/SetupPage';
import { AboutPage } from '../pages/about/AboutPage';
import { NotFoundPage } from '../pages/NotFoundPage';

// The pricing table needs the kit's heavy half (@console/kit/data); most visits never open it.
const PricingPage = lazy(() => import('../pages/pricing/PricingPage').then((m) => ({ default: m.PricingPage })));

export function AppRoutes() {
  const status = useStatus();
  const { pathname } = useLocation();
  // A fresh install has no admin yet: everything but the wizard waits for setup.
  if (status.setup === false && pathname !== '/setup') return <Navigate to="/setup" replace />;
  return (
    <Routes>
      <Route path="/" element={<HomePage />} />
      <Route path="/setup" element={<SetupPage />} />
      <Route path="/login" element={<LoginPage />} />
      <Route path="/register" element={<RegisterPage />} />
      <Route path="/reset" element={<ResetRequestPage />} />
      <Route path="/user/reset" element={<ResetConfirmPage />} />
      <Route path="/oauth/github" element={<OAuthCallbackPage provider="github" />} />
      <Route path="/oauth/oidc" element={<OAuthCallbackPage provider="oidc" />} />
      <Route path="/oauth/linuxdo" element={<OAuthCallbackPage provider="linuxdo" />} />
      <Route
        path="/pricing"
        element={
          <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} />}>
            <PricingPage />
          </Suspense>
        }
      />
      <Route path="/about" element={<AboutPage />} />
      {REMOTE_ROUTES.map((route) => (
        <Route
          key={route.path}
          path={route.path}
          element={
            <Guard access={route.access}>
              <RemoteOutlet remote={route.remote} page={route.page} />
            </Guard>
          }
        />
      ))}
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
