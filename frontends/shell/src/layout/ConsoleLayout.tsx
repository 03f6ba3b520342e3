import type { ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { Layout, useAuth, useIsMobile } from '@console/kit';
import { hidesSidebar } from '../routes/route-table';
import { TopBar } from './TopBar';
import { Sidebar } from './Sidebar';
import { Footer } from './Footer';

export function ConsoleLayout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const { isLoggedIn } = useAuth();
  const isMobile = useIsMobile();
  // One rule for both: the sidebar on wide screens, its entries behind the top bar's menu button on mobile.
  const sidebarAllowed = isLoggedIn && !hidesSidebar(pathname);
  const showSidebar = sidebarAllowed && !isMobile;
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header style={{ position: 'sticky', top: 0, zIndex: 100 }}>
        <TopBar menu={sidebarAllowed && isMobile} />
      </Layout.Header>
      <Layout>
        {showSidebar && (
          <Layout.Sider>
            <Sidebar />
          </Layout.Sider>
        )}
        <Layout style={{ minWidth: 0 }}>
          <Layout.Content style={{ padding: pathname === '/' ? 0 : 16, background: 'var(--semi-color-bg-0)' }}>{children}</Layout.Content>
          {!pathname.startsWith('/chat') && (
            <Layout.Footer>
              <Footer />
            </Layout.Footer>
          )}
        </Layout>
      </Layout>
    </Layout>
  );
}
