import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Avatar, Dropdown, useAuth } from '@console/kit';

export function UserMenu() {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const { user, logout } = useAuth();
  const name = user?.display_name || user?.username || '';
  const onLogout = async () => {
    await logout();
    navigate('/login');
  };
  return (
    <Dropdown
      trigger="click"
      position="bottomRight"
      render={
        <Dropdown.Menu>
          <Dropdown.Item onClick={() => navigate('/personal')}>{t('nav.personal')}</Dropdown.Item>
          <Dropdown.Item data-testid="logout" onClick={() => void onLogout()}>
            {t('nav.logout')}
          </Dropdown.Item>
        </Dropdown.Menu>
      }
    >
      <span style={{ display: 'inline-block' }}>
        <Avatar size="small" color="blue" data-testid="user-avatar" style={{ cursor: 'pointer' }}>
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
      </span>
    </Dropdown>
  );
}
