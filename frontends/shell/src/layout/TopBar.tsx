import { lazy, Suspense, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { IconMenu } from '@douyinfe/semi-icons';
import { Button, Nav, Tag, useAuth, useIsMobile, useStatus } from '@console/kit';
import { ThemeSwitch } from './ThemeSwitch';
import { LanguageMenu } from './LanguageMenu';
import { UserMenu } from './UserMenu';

const MobileMenu = lazy(() => import('./MobileMenu'));

interface TopLink {
  key: string;
  label: string;
  to: string;
  external?: boolean;
}

/** The menu button that opens the sidebar's entries on mobile; the sheet is fetched on the first tap. */
function MobileMenuButton() {
  const { t } = useTranslation('shell');
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState(false);
  return (
    <>
      <Button
        theme="borderless"
        icon={<IconMenu />}
        aria-label={t('nav.menu')}
        data-testid="mobile-menu"
        onClick={() => {
          setLoaded(true);
          setOpen(true);
        }}
      />
      {loaded && (
        <Suspense fallback={null}>
          <MobileMenu open={open} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}

/** `menu`: show the mobile menu button (the layout decides, with the sidebar's own rules). */
export function TopBar({ menu = false }: { menu?: boolean }) {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const status = useStatus();
  const { isLoggedIn } = useAuth();
  const isMobile = useIsMobile();

  const links: TopLink[] = [
    { key: 'home', label: t('nav.home'), to: '/' },
    { key: 'console', label: t('nav.console'), to: '/token' },
    { key: 'pricing', label: t('nav.pricing'), to: '/pricing' },
    ...(status.docs_link ? [{ key: 'docs', label: t('nav.docs'), to: status.docs_link, external: true }] : []),
    { key: 'about', label: t('nav.about'), to: '/about' },
  ];

  const open = (link: TopLink) => (link.external ? window.open(link.to, '_blank', 'noopener') : navigate(link.to));

  return (
    <Nav
      mode="horizontal"
      header={{
        logo: status.logo ? <img src={status.logo} alt="" style={{ height: 28 }} /> : undefined,
        text: (
          <>
            {menu && <MobileMenuButton />}
            <a
              href="/"
              style={{ display: 'inline-flex', gap: 8, alignItems: 'center', color: 'inherit', textDecoration: 'none' }}
              onClick={(event) => {
                event.preventDefault();
                navigate('/');
              }}
            >
              {isMobile ? null : status.system_name || t('defaultSystemName')}
              {status.self_use_mode_enabled && <Tag color="orange">{t('badge.selfUse')}</Tag>}
              {status.demo_site_enabled && <Tag color="cyan">{t('badge.demo')}</Tag>}
            </a>
          </>
        ),
      }}
      footer={
        <span style={{ display: 'inline-flex', gap: 8, alignItems: 'center' }}>
          <ThemeSwitch />
          <LanguageMenu />
          {isLoggedIn ? (
            <UserMenu />
          ) : (
            <>
              <Button theme="borderless" onClick={() => navigate('/login')}>
                {t('nav.login')}
              </Button>
              {!status.self_use_mode_enabled && (
                <Button theme="solid" onClick={() => navigate('/register')}>
                  {t('nav.register')}
                </Button>
              )}
            </>
          )}
        </span>
      }
    >
      {links.map((link) => (
        <Nav.Item key={link.key} itemKey={link.key} text={link.label} onClick={() => open(link)} />
      ))}
    </Nav>
  );
}
