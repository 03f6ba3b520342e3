import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { IconSidebar } from '@douyinfe/semi-icons';
import { Button, Card, Toast, useIsMobile } from '@console/kit';
import { ChatArea } from './ChatArea';
import { DebugPanel } from './DebugPanel';
import { SettingsPanel } from './SettingsPanel';
import { usePlaygroundSettings } from './settings';
import { useChat } from './useChat';

/** Like new-api, any non-empty value of the flag counts, not only 'true'. */
function useExpiredFlag(): boolean {
  const [params] = useSearchParams();
  return Boolean(params.get('expired'));
}

export function PlaygroundPage() {
  const { t } = useTranslation('playground');
  const isMobile = useIsMobile();
  const [panelOpen, setPanelOpen] = useState(false);
  const [debugOpen, setDebugOpen] = useState(false);
  const { settings, update, reset } = usePlaygroundSettings();
  const chat = useChat(settings);
  const expired = useExpiredFlag();
  useEffect(() => {
    // Spec 001 §8: a link back here after a lost session carries ?expired. Shown once per visit, not on
    // every language switch, so `t` is deliberately not a dependency.
    if (expired) Toast.error(t('expired'));
  }, [expired]);
  const showPanel = !isMobile || panelOpen;
  return (
    <Card bodyStyle={{ padding: 0, height: '100%' }} style={{ height: 'calc(100vh - 140px)', minHeight: 480 }}>
      <div style={{ display: 'flex', height: '100%', flexDirection: isMobile ? 'column' : 'row' }}>
        {isMobile && (
          <Button icon={<IconSidebar />} theme="borderless" onClick={() => setPanelOpen(!panelOpen)} data-testid="toggle-panel">
            {t(panelOpen ? 'hideSettings' : 'showSettings')}
          </Button>
        )}
        {showPanel && (
          <div
            style={{
              width: isMobile ? '100%' : 300,
              flexShrink: 0,
              maxHeight: isMobile ? '50%' : undefined,
              borderRight: isMobile ? 'none' : '1px solid var(--semi-color-border)',
              borderBottom: isMobile ? '1px solid var(--semi-color-border)' : 'none',
              overflowY: 'auto',
            }}
          >
            <SettingsPanel settings={settings} update={update} reset={reset} />
          </div>
        )}
        <div style={{ flex: 1, minWidth: 0, minHeight: 0 }}>
          <ChatArea chat={chat} onShowDebug={() => setDebugOpen(true)} />
        </div>
      </div>
      <DebugPanel exchange={chat.debug} visible={debugOpen} onClose={() => setDebugOpen(false)} mobile={isMobile} />
    </Card>
  );
}
