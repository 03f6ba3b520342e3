import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import SideSheet from '@douyinfe/semi-ui/lib/es/sideSheet';
// Through the kit's own entry, so the shared singleton's Button is used, not a second copy in this chunk.
import { Button, Space, Spin } from '@console/kit';

interface FormSheetProps {
  title: string;
  visible: boolean;
  width: number;
  onClose(): void;
  /** False while the record being edited is still loading: a spinner stands in for the form. */
  ready: boolean;
  saving: boolean;
  onSubmit(): void;
  /** data-testid of the submit button. */
  submitTestId: string;
  children: ReactNode;
}

/** A side sheet holding one create/edit form, with Cancel and Submit in its footer. */
export function FormSheet({ title, visible, width, onClose, ready, saving, onSubmit, submitTestId, children }: FormSheetProps) {
  const { t } = useTranslation('kit');
  return (
    <SideSheet
      title={title}
      visible={visible}
      onCancel={onClose}
      width={width}
      footer={
        <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={onClose}>{t('action.cancel')}</Button>
          <Button theme="solid" loading={saving} disabled={!ready} onClick={onSubmit} data-testid={submitTestId}>
            {t('action.submit')}
          </Button>
        </Space>
      }
    >
      {ready ? children : <Spin />}
    </SideSheet>
  );
}

/**
 * The saving flag of a form and the wrapper that raises it around one save. A failed save was already
 * reported by the API client (a toast), so the wrapper only keeps the form open; `save` runs close-on-success itself.
 */
export function useSaving(): [saving: boolean, run: (save: () => Promise<void>) => Promise<void>] {
  const [saving, setSaving] = useState(false);
  const run = async (save: () => Promise<void>) => {
    setSaving(true);
    try {
      await save();
    } catch {
      // Already reported by the API client.
    } finally {
      setSaving(false);
    }
  };
  return [saving, run];
}
