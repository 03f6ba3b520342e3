import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconClear, IconCode, IconImage, IconSend, IconStop } from '@douyinfe/semi-icons';
import { Badge, Button, Space, Tooltip } from '@console/kit';
import { TextArea } from '@console/kit/data';
import { ImageAttachments } from './ImageAttachments';
import type { Chat } from './useChat';

interface ComposerProps {
  chat: Chat;
  onShowDebug(): void;
}

/** The input box and the conversation's actions (images, debug, clear, send or stop). */
export function Composer({ chat, onShowDebug }: ComposerProps) {
  const { t } = useTranslation('playground');
  const [draft, setDraft] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const [showImages, setShowImages] = useState(false);

  const submit = () => {
    if (chat.send(draft, images)) {
      setDraft('');
      setImages([]);
    }
  };

  return (
    <div style={{ padding: 12, borderTop: '1px solid var(--semi-color-border)' }}>
      {showImages && <ImageAttachments images={images} onChange={setImages} />}
      <TextArea
        value={draft}
        onChange={setDraft}
        placeholder={t('placeholder')}
        autosize={{ minRows: 2, maxRows: 6 }}
        onEnterPress={(event) => {
          if (!event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            submit();
          }
        }}
        data-testid="chat-input"
      />
      <div style={{ display: 'flex', marginTop: 8, justifyContent: 'space-between', flexWrap: 'wrap', gap: 8 }}>
        <Space spacing={4}>
          <Tooltip content={t('image.toggle')}>
            <Badge count={images.length || undefined} type="primary">
              <Button
                icon={<IconImage />}
                theme={showImages ? 'light' : 'borderless'}
                onClick={() => setShowImages(!showImages)}
                aria-label={t('image.toggle')}
                data-testid="toggle-images"
              />
            </Badge>
          </Tooltip>
          <Tooltip content={t('debug.title')}>
            <Button icon={<IconCode />} theme="borderless" onClick={onShowDebug} aria-label={t('debug.title')} data-testid="toggle-debug" />
          </Tooltip>
        </Space>
        <Space>
          <Button icon={<IconClear />} onClick={chat.clear} disabled={chat.messages.length === 0} data-testid="clear-context">
            {t('clear')}
          </Button>
          {chat.streaming ? (
            <Button type="danger" icon={<IconStop />} onClick={chat.stop} data-testid="stop">
              {t('stop')}
            </Button>
          ) : (
            <Button theme="solid" icon={<IconSend />} onClick={submit} data-testid="send">
              {t('send')}
            </Button>
          )}
        </Space>
      </div>
    </div>
  );
}
