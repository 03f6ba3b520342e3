import { createRoot } from 'react-dom/client';
import { applyThemeMode, initI18n, registerNamespace, setLanguage, storedLanguage } from '@console/kit';
import { shellResources } from './i18n';
import { App } from './App';
import './global.css';

initI18n();
registerNamespace('shell', shellResources);
void setLanguage(storedLanguage());
applyThemeMode();

createRoot(document.getElementById('root')!).render(<App />);
