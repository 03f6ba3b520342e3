import { startStandalone } from '@console/kit';
import App from './App';
import { resources } from './i18n';

startStandalone({
  name: 'playground',
  App,
  namespace: 'playground',
  resources,
  pages: { '/playground': 'playground', '/chat': 'chat', '/chat2link': 'chat2link' },
});
