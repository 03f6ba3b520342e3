import { useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import {
  IconAppCenter,
  IconCalendarClock,
  IconChecklistStroked,
  IconComment,
  IconCreditCard,
  IconGift,
  IconHistogram,
  IconImage,
  IconKey,
  IconLayers,
  IconSetting,
  IconUser,
  IconUserGroup,
} from '@douyinfe/semi-icons';
import { Nav, STORAGE_KEYS, useAuth, useStatus } from '@console/kit';
import { visibleSections, type SidebarItem } from './sidebar-items';

const ICONS: Record<SidebarItem['icon'], ReactNode> = {
  playground: <IconAppCenter />,
  chat: <IconComment />,
  dashboard: <IconHistogram />,
  token: <IconKey />,
  log: <IconCalendarClock />,
  drawing: <IconImage />,
  task: <IconChecklistStroked />,
  channel: <IconLayers />,
  redemption: <IconGift />,
  user: <IconUserGroup />,
  setting: <IconSetting />,
  wallet: <IconCreditCard />,
  personal: <IconUser />,
};

export const SIDEBAR_WIDTH = 200;
export const SIDEBAR_COLLAPSED_WIDTH = 60;

/** The user's own choice wins; the site's default_collapse_sidebar only sets the first state. */
function initialCollapsed(defaultCollapsed: boolean | undefined): boolean {
  const stored = localStorage.getItem(STORAGE_KEYS.sidebarCollapsed);
  return stored === null ? defaultCollapsed === true : stored === 'true';
}

interface SidebarProps {
  /** 'sheet': the same entries inside the mobile menu, full width and never collapsed. */
  mode?: 'sider' | 'sheet';
  /** Called after an entry was chosen (the mobile menu closes itself). */
  onNavigate?(): void;
}

export function Sidebar({ mode = 'sider', onNavigate }: SidebarProps) {
  const { t } = useTranslation('shell');
  const status = useStatus();
  const { isAdmin } = useAuth();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [storedCollapsed, setCollapsed] = useState(() => initialCollapsed(status.default_collapse_sidebar));
  const inSheet = mode === 'sheet';
  const collapsed = !inSheet && storedCollapsed;
  const sections = visibleSections(status, isAdmin);
  const selected = pathname.split('/')[1] ?? '';

  const onCollapseChange = (next: boolean) => {
    localStorage.setItem(STORAGE_KEYS.sidebarCollapsed, String(next));
    setCollapsed(next);
  };

  const onSelect = (itemKey: string) => {
    navigate(sections.flatMap((s) => s.items).find((i) => i.key === itemKey)?.path ?? '/');
    onNavigate?.();
  };

  return (
    <Nav
      data-testid={inSheet ? 'mobile-sidebar' : 'sidebar'}
      isCollapsed={collapsed}
      onCollapseChange={inSheet ? undefined : onCollapseChange}
      selectedKeys={[selected]}
      onSelect={({ itemKey }) => onSelect(String(itemKey))}
      style={{ width: inSheet ? '100%' : collapsed ? SIDEBAR_COLLAPSED_WIDTH : SIDEBAR_WIDTH, height: '100%' }}
      footer={inSheet ? undefined : { collapseButton: true }}
    >
      {sections.map((section) => [
        section.title && !collapsed ? (
          <div key={`title-${section.key}`} style={{ padding: '12px 12px 4px', fontSize: 12, color: 'var(--semi-color-text-2)' }}>
            {t(section.title)}
          </div>
        ) : null,
        ...section.items.map((item) => <Nav.Item key={item.key} itemKey={item.key} text={t(item.label)} icon={ICONS[item.icon]} />),
      ])}
    </Nav>
  );
}
