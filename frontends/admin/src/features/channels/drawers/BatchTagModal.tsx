import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Input, Modal, Toast } from '@console/kit';

/** Sets one tag on the selected channels (spec 001 §5: needs a selection and a non-empty tag). */
export function BatchTagModal({
  count,
  visible,
  onSubmit,
  onClose,
}: {
  count: number;
  visible: boolean;
  onSubmit(tag: string): Promise<void>;
  onClose(): void;
}) {
  const { t } = useTranslation('admin');
  const [tag, setTag] = useState('');
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    if (!tag.trim()) return Toast.error(t('channels.error.tagRequired'));
    setSaving(true);
    try {
      await onSubmit(tag.trim());
      setTag('');
      onClose();
    } catch {
      // Already reported by the API client.
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal
      title={t('channels.batch.tag')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={saving}
      okText={t('submit')}
      cancelText={t('cancel')}
    >
      <p>{t('channels.batch.tagHint', { count })}</p>
      <Input value={tag} onChange={setTag} placeholder={t('channels.column.tag')} data-testid="batch-tag-input" />
    </Modal>
  );
}
