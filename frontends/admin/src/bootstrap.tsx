import { startStandalone } from '@console/kit';
import App from './App';
import { resources } from './i18n';

startStandalone({
  name: 'admin',
  App,
  namespace: 'admin',
  resources,
  pages: { '/user': 'users', '/channel': 'channels', '/redemption': 'redemptions', '/setting': 'settings' },
});
