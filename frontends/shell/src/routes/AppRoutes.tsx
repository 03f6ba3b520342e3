import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { Spin, useStatus } from '@console/kit';
import { RemoteOutlet } from '../remotes/RemoteOutlet';
import { REMOTE_ROUTES } from './route-table';
import { Guard } from './guards';
import { HomePage } from '../pages/home/HomePage';
import { LoginPage } from '../pages/login/LoginPage';
import { NotFoundPage } from '../pages/NotFoundPage';

// The landing and login pages come with the shell; the others are fetched when visited, which keeps the
// first load small (pricing also needs the kit's heavy half, @console/kit/data).
const SetupPage = lazy(() => import('../pages/setup/SetupPage').then((m) => ({ default: m.SetupPage })));
const RegisterPage = lazy(() => import('../pages/register/RegisterPage').then((m) => ({ default: m.RegisterPage })));
const ResetRequestPage = lazy(() => import('../pages/reset/ResetRequestPage').then((m) => ({ default: m.ResetRequestPage })));
const ResetConfirmPage = lazy(() => import('../pages/reset/ResetConfirmPage').then((m) => ({ default: m.ResetConfirmPage })));
const OAuthCallbackPage = lazy(() => import('../pages/oauth/OAuthCallbackPage').then((m) => ({ default: m.OAuthCallbackPage })));
const OAuthProviderCallbackPage = lazy(() =>
  import('../pages/oauth/OAuthCallbackPage').then((m) => ({ default: m.OAuthProviderCallbackPage })),
);
const PricingPage = lazy(() => import('../pages/pricing/PricingPage').then((m) => ({ default: m.PricingPage })));
const AboutPage = lazy(() => import('../pages/about/AboutPage').then((m) => ({ default: m.AboutPage })));
const LegalPage = lazy(() => import('../pages/about/LegalPage').then((m) => ({ default: m.LegalPage })));

export function AppRoutes() {
  const status = useStatus();
  const { pathname } = useLocation();
  // A fresh install has no admin yet: everything but the wizard waits for setup.
  if (status.setup === false && pathname !== '/setup') return <Navigate to="/setup" replace />;
  return (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} />}>
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
        <Route path="/oauth/telegram" element={<OAuthCallbackPage provider="telegram" />} />
        <Route path="/oauth/:provider" element={<OAuthProviderCallbackPage />} />
        <Route path="/pricing" element={<PricingPage />} />
        <Route path="/about" element={<AboutPage />} />
        <Route path="/user-agreement" element={<LegalPage kind="user-agreement" />} />
        <Route path="/privacy-policy" element={<LegalPage kind="privacy-policy" />} />
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
    </Suspense>
  );
}
