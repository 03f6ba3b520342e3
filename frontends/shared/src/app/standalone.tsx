import { useState, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link, Route, Routes } from 'react-router-dom';
import { api } from '../api/client';
import { storeUser, type StoredUser } from '../auth/user-store';
import { useAuth } from '../auth/useAuth';
import { applyThemeMode } from '../theme/theme-mode';
import { initI18n, registerNamespace, type NamespaceResources } from '../i18n/setup';
import { loadStatus } from '../status/status-store';
import { Button, Card, Input, Space } from '../ui/semi';
import { ConsoleProviders } from './ConsoleProviders';
import type { RemoteAppProps } from './remote-contract';

interface StandaloneOptions {
  name: string;
  App: ComponentType<RemoteAppProps>;
  /** URL path -> page key, the same pairs the shell's route table gives this remote. */
  pages: Record<string, string>;
  namespace: string;
  resources: NamespaceResources;
}

/** Dev only: a remote on its own port has its own localStorage, so it needs its own way to log in. */
function DevLogin() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const submit = () => api.post<StoredUser>('/api/user/login', { username, password }).then(storeUser, () => undefined);
  return (
    <Card title="Log in (standalone dev mode)" style={{ maxWidth: 360, margin: 48 }}>
      <Space vertical align="start">
        <Input value={username} onChange={setUsername} placeholder="username" />
        <Input value={password} onChange={setPassword} mode="password" placeholder="password" />
        <Button theme="solid" onClick={() => void submit()}>
          Log in
        </Button>
      </Space>
    </Card>
  );
}

function Harness({ name, App, pages }: StandaloneOptions) {
  const { isLoggedIn } = useAuth();
  if (!isLoggedIn) return <DevLogin />;
  return (
    <>
      <nav style={{ display: 'flex', gap: 16, padding: '12px 16px', borderBottom: '1px solid var(--semi-color-border)' }}>
        <strong>{name} (standalone)</strong>
        {Object.keys(pages).map((path) => (
          <Link key={path} to={path}>
            {path}
          </Link>
        ))}
      </nav>
      <div style={{ padding: 16 }}>
        <Routes>
          {Object.entries(pages).map(([path, page]) => (
            <Route key={path} path={`${path}/*`} element={<App page={page} />} />
          ))}
        </Routes>
      </div>
    </>
  );
}

/** Boots a remote on its own, outside the shell, for development with hot reload. */
export function startStandalone(options: StandaloneOptions): void {
  initI18n();
  registerNamespace(options.namespace, options.resources);
  applyThemeMode();
  void loadStatus().catch(() => undefined);
  createRoot(document.getElementById('root')!).render(
    <ConsoleProviders>
      <BrowserRouter>
        <Harness {...options} />
      </BrowserRouter>
    </ConsoleProviders>,
  );
}
