import { useTranslation } from 'react-i18next';
import { Button, Modal, Space } from '@console/kit';
import { Checkbox } from '@console/kit/data';
import { HIDEABLE_COLUMNS } from '../columns';

const LABELS: Record<(typeof HIDEABLE_COLUMNS)[number], string> = {
  id: 'ID',
  name: 'channels.column.name',
  group: 'channels.column.group',
  type: 'channels.column.type',
  status: 'channels.column.status',
  response_time: 'channels.column.responseTime',
  balance: 'channels.column.balance',
  priority: 'channels.column.priority',
  weight: 'channels.column.weight',
  tag: 'channels.column.tag',
};

/** Which columns show; the choice is remembered in the browser. */
export function ColumnsModal({
  visible,
  hidden,
  onChange,
  onClose,
}: {
  visible: boolean;
  hidden: string[];
  onChange(hidden: string[]): void;
  onClose(): void;
}) {
  const { t } = useTranslation('admin');
  const toggle = (key: string, shown: boolean) => onChange(shown ? hidden.filter((item) => item !== key) : [...hidden, key]);
  return (
    <Modal title={t('channels.columns')} visible={visible} onCancel={onClose} onOk={onClose} okText={t('close')} hasCancel={false}>
      <Space vertical align="start">
        {HIDEABLE_COLUMNS.map((key) => (
          <Checkbox
            key={key}
            checked={!hidden.includes(key)}
            onChange={(event) => toggle(key, Boolean(event.target.checked))}
            data-testid={`column-toggle-${key}`}
          >
            {key === 'id' ? 'ID' : t(LABELS[key])}
          </Checkbox>
        ))}
      </Space>
      <div style={{ marginTop: 12 }}>
        <Button theme="borderless" onClick={() => onChange([])}>
          {t('channels.resetColumns')}
        </Button>
      </div>
    </Modal>
  );
}
