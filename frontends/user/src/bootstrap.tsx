import { startStandalone } from '@console/kit';
import App from './App';
import { resources } from './i18n';

startStandalone({
  name: 'user',
  App,
  namespace: 'user',
  resources,
  pages: {
    '/token': 'tokens',
    '/log': 'logs',
    '/detail': 'dashboard',
    '/midjourney': 'drawing',
    '/task': 'tasks',
    '/topup': 'wallet',
    '/personal': 'personal',
  },
});
