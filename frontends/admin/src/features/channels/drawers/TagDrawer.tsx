import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, FormRow, Input, Space, Toast } from '@console/kit';
import { FormSheet, InputNumber, Select, useSaving } from '@console/kit/data';
import { channelsApi, type TagEdit } from '../api';
import { isJsonObjectText } from '../channel-form';
import type { TagRow } from '../channel-rows';
import { JsonField } from './JsonField';

interface TagForm {
  new_tag: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  priority: number | null;
  weight: number | null;
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((item, index) => item === b[index]);
const split = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * Edits every channel of one tag at once (spec 001 §5): only what changed is sent, an empty new tag
 * dissolves the tag, and no change at all is refused with 'no changes'.
 */
export function TagDrawer({ tag, groups, onClose, onSaved }: { tag: TagRow | null; groups: string[]; onClose(): void; onSaved(): void }) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<TagForm | null>(null);
  const [saving, whileSaving] = useSaving();
  const initial = tag ? { models: split(tag.models), groups: split(tag.group) } : null;

  useEffect(() => {
    setForm(
      tag
        ? {
            new_tag: tag.tag,
            models: split(tag.models),
            groups: split(tag.group),
            model_mapping: '',
            priority: tag.priority,
            weight: tag.weight,
          }
        : null,
    );
  }, [tag]);

  const set =
    <K extends keyof TagForm>(key: K) =>
    (value: TagForm[K]) =>
      setForm((current) => (current ? { ...current, [key]: value } : current));

  const submit = async () => {
    if (!form || !tag || !initial) return;
    if (!isJsonObjectText(form.model_mapping)) return Toast.error(t('channels.error.modelMapping'));
    if (form.priority !== null && (!Number.isInteger(form.priority) || form.priority < -999))
      return Toast.error(t('channels.error.priority'));
    if (form.weight !== null && (!Number.isInteger(form.weight) || form.weight < 0)) return Toast.error(t('channels.error.weight'));
    const edit: TagEdit = {
      tag: tag.tag,
      new_tag: form.new_tag.trim() === tag.tag ? null : form.new_tag.trim(),
      models: same(form.models, initial.models) ? null : form.models.join(','),
      groups: same(form.groups, initial.groups) ? null : form.groups.join(','),
      model_mapping: form.model_mapping.trim() ? JSON.stringify(JSON.parse(form.model_mapping)) : null,
      priority: form.priority === tag.priority ? null : form.priority,
      weight: form.weight === tag.weight ? null : form.weight,
    };
    if (Object.entries(edit).every(([key, value]) => key === 'tag' || value === null)) return Toast.warning(t('channels.error.noChanges'));
    await whileSaving(async () => {
      const count = await channelsApi.editTag(edit);
      Toast.success(t('channels.tagSaved', { count }));
      onSaved();
      onClose();
    });
  };

  return (
    <FormSheet
      title={t('channels.editTag', { tag: tag?.tag ?? '' })}
      visible={tag !== null}
      onClose={onClose}
      width={520}
      ready={form !== null}
      saving={saving}
      onSubmit={() => void submit()}
      submitTestId="tag-submit"
    >
      {form && (
        <>
          <Banner type="info" description={t('channels.tagEditHint')} style={{ marginBottom: 16 }} />
          <FormRow label={t('channels.field.newTag')} hint={t('channels.field.newTagHint')}>
            <Input value={form.new_tag} onChange={set('new_tag')} data-testid="tag-new-name" />
          </FormRow>
          <FormRow label={t('channels.field.models')}>
            <Select
              multiple
              filter
              allowCreate
              value={form.models}
              onChange={(value) => set('models')(Array.isArray(value) ? value.map(String) : [])}
              optionList={form.models.map((name) => ({ label: name, value: name }))}
              style={{ width: '100%' }}
            />
          </FormRow>
          <FormRow label={t('channels.field.groups')}>
            <Select
              multiple
              filter
              allowCreate
              value={form.groups}
              onChange={(value) => set('groups')(Array.isArray(value) ? value.map(String) : [])}
              optionList={[...new Set([...groups, ...form.groups])].map((name) => ({ label: name, value: name }))}
              style={{ width: '100%' }}
            />
          </FormRow>
          <JsonField
            label={t('channels.field.modelMapping')}
            value={form.model_mapping}
            onChange={set('model_mapping')}
            placeholder={t('channels.field.tagMappingPlaceholder')}
          />
          <Space spacing={24}>
            <Space vertical align="start" spacing={4}>
              <span>{t('channels.column.priority')}</span>
              <InputNumber
                value={form.priority ?? ''}
                min={-999}
                precision={0}
                onChange={(value) => set('priority')(value === '' ? null : Number(value))}
              />
            </Space>
            <Space vertical align="start" spacing={4}>
              <span>{t('channels.column.weight')}</span>
              <InputNumber
                value={form.weight ?? ''}
                min={0}
                precision={0}
                onChange={(value) => set('weight')(value === '' ? null : Number(value))}
              />
            </Space>
          </Space>
        </>
      )}
    </FormSheet>
  );
}
