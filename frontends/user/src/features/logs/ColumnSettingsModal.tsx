import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, Space } from '@console/kit';
import { Checkbox } from '@console/kit/data';
import type { ColumnVisibility, LogColumnKey } from './column-prefs';

interface ColumnSettingsModalProps {
  visible: boolean;
  keys: LogColumnKey[];
  visibility: ColumnVisibility;
  onSave(visibility: ColumnVisibility): void;
  onClose(): void;
}

/** Which columns to show; the choice is saved in the browser (logs-table-columns). */
export function ColumnSettingsModal({ visible, keys, visibility, onSave, onClose }: ColumnSettingsModalProps) {
  const { t } = useTranslation('user');
  const [draft, setDraft] = useState(visibility);
  useEffect(() => setDraft(visibility), [visibility, visible]);
  const setAll = (shown: boolean) => setDraft((current) => ({ ...current, ...Object.fromEntries(keys.map((key) => [key, shown])) }));

  return (
    <Modal
      title={t('logs.columnSettings')}
      visible={visible}
      onCancel={onClose}
      onOk={() => onSave(draft)}
      okText={t('save')}
      cancelText={t('cancel')}
    >
      <Space style={{ marginBottom: 12 }}>
        <Button size="small" onClick={() => setAll(true)}>
          {t('logs.columnsAll')}
        </Button>
        <Button size="small" onClick={() => setAll(false)}>
          {t('logs.columnsNone')}
        </Button>
      </Space>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(3, 1fr)', gap: 8 }}>
        {keys.map((key) => (
          <Checkbox
            key={key}
            checked={draft[key]}
            onChange={(event) => setDraft((current) => ({ ...current, [key]: Boolean(event.target.checked) }))}
          >
            <span data-testid={`logs-column-${key}`}>{t(`logs.columnName.${key}`)}</span>
          </Checkbox>
        ))}
      </div>
    </Modal>
  );
}
