import { useTranslation } from 'react-i18next';
import { SideSheet } from '@console/kit/data';
import { Sidebar } from './Sidebar';

interface MobileMenuProps {
  open: boolean;
  onClose(): void;
}

/**
 * Under 600 px the sidebar is hidden; this sheet offers the same entries (same visibility rules) from the
 * top bar's menu button. Loaded on first open, as SideSheet lives in the kit's heavy half.
 */
export default function MobileMenu({ open, onClose }: MobileMenuProps) {
  const { t } = useTranslation('shell');
  return (
    <SideSheet visible={open} onCancel={onClose} placement="left" width={240} title={t('nav.menu')} bodyStyle={{ padding: 0 }}>
      <Sidebar mode="sheet" onNavigate={onClose} />
    </SideSheet>
  );
}
