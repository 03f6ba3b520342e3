import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormRow, Input, Modal, RadioGroup, Space, Toast, useAuth } from '@console/kit';
import { FormSheet, InputNumber, Select, Switch, TextArea, useSaving } from '@console/kit/data';
import { CHANNEL_TYPES, channelTypeInfo } from '../../../contracts';
import { channelsApi } from '../api';
import {
  emptyForm,
  endsWithV1,
  formFromChannel,
  toPayload,
  VERTEX_AI,
  validateForm,
  type ChannelForm,
  type VertexKeyType,
} from '../channel-form';
import { RevealKeyButton } from './RevealKeyButton';
import { JsonField } from './JsonField';
import { ModelsField } from './ModelsField';
import { OllamaModels } from './OllamaModels';

interface ChannelDrawerProps {
  /** null = closed, 0 = add, otherwise the id being edited. */
  channelId: number | null;
  groups: string[];
  onClose(): void;
  onSaved(): void;
}

const TYPE_OPTIONS = CHANNEL_TYPES.map((type) => ({ label: `${type.name} (${type.id})`, value: type.id }));

/** Asks before saving a base URL ending in /v1: the gateway appends the path itself, so it usually doubles. */
const confirmV1 = (title: string, content: string, okText: string, cancelText: string) =>
  new Promise<boolean>((resolve) =>
    Modal.confirm({ title, content, okText, cancelText, onOk: () => resolve(true), onCancel: () => resolve(false) }),
  );

/** Add or edit one channel with the fields its type needs (spec 001 §2, §5). */
export function ChannelDrawer({ channelId, groups, onClose, onSaved }: ChannelDrawerProps) {
  const { t } = useTranslation('admin');
  const { isRoot } = useAuth();
  const creating = channelId === 0;
  const [form, setForm] = useState<ChannelForm | null>(null);
  const [allModels, setAllModels] = useState<string[]>([]);
  const [saving, whileSaving] = useSaving();

  useEffect(() => {
    setForm(null);
    if (channelId === null) return;
    channelsApi.builtInModels().then(
      (list) => setAllModels(list.map((model) => model.id)),
      () => undefined,
    );
    if (channelId === 0) return setForm(emptyForm());
    channelsApi.get(channelId).then((channel) => setForm(formFromChannel(channel)), onClose);
  }, [channelId, onClose]);

  const set =
    <K extends keyof ChannelForm>(key: K) =>
    (value: ChannelForm[K]) =>
      setForm((current) => (current ? { ...current, [key]: value } : current));
  const info = form ? channelTypeInfo(form.type) : undefined;
  const keyHelp = form?.type === VERTEX_AI && form.vertexKeyType === 'api_key' ? t('channels.field.vertexApiKey') : info?.keyHelp;

  const fetchUpstream = async (): Promise<string[]> => {
    if (!form) return [];
    const key =
      form.key
        .split('\n')
        .map((line) => line.trim())
        .find(Boolean) ?? '';
    if (!creating && !key) return channelsApi.fetchModelsOf(channelId as number);
    if (!key) {
      Toast.error(t('channels.error.keyForFetch'));
      throw new Error('no key');
    }
    if (!isRoot) {
      Toast.error(t('channels.error.rootForFetch'));
      throw new Error('not root');
    }
    return channelsApi.fetchModels(form.type, form.base_url.trim(), key);
  };

  const submit = async () => {
    if (!form) return;
    const problem = validateForm(form, creating);
    if (problem) return Toast.error(t(problem));
    if (endsWithV1(form.base_url) && !(await confirmV1(t('channels.confirm.v1Title'), t('channels.confirm.v1'), t('submit'), t('cancel'))))
      return;
    await whileSaving(async () => {
      const body = toPayload(form, creating ? undefined : (channelId as number));
      if (creating) {
        const { ids } = await channelsApi.create(body);
        Toast.success(t('channels.created', { count: ids.length }));
      } else {
        await channelsApi.update({ ...body.channel, id: channelId as number });
        Toast.success(t('channels.updated'));
      }
      onSaved();
      onClose();
    });
  };

  return (
    <FormSheet
      title={creating ? t('channels.add') : t('channels.edit')}
      visible={channelId !== null}
      onClose={onClose}
      width={620}
      ready={form !== null}
      saving={saving}
      onSubmit={() => void submit()}
      submitTestId="channel-submit"
    >
      {form && (
        <>
          <FormRow label={t('channels.field.type')}>
            <Select
              filter
              value={form.type}
              onChange={(value) => set('type')(Number(value))}
              optionList={TYPE_OPTIONS}
              style={{ width: '100%' }}
              data-testid="channel-type"
            />
          </FormRow>
          <FormRow label={t('channels.field.name')}>
            <Input value={form.name} onChange={set('name')} placeholder={t('channels.field.namePlaceholder')} data-testid="channel-name" />
          </FormRow>
          {creating && (
            <FormRow label={t('channels.field.keyMode')} hint={t(`channels.field.keyModeHint.${form.keyMode}`)}>
              <RadioGroup
                type="button"
                value={form.keyMode}
                onChange={(event) => set('keyMode')(event.target.value as ChannelForm['keyMode'])}
                options={[
                  { label: t('channels.field.keyModes.single'), value: 'single' },
                  { label: t('channels.field.keyModes.batch'), value: 'batch' },
                  { label: t('channels.field.keyModes.multi'), value: 'multi' },
                ]}
                data-testid="channel-key-mode"
              />
            </FormRow>
          )}
          {creating && form.keyMode === 'multi' && (
            <FormRow label={t('channels.field.multiKeyMode')} hint={t('channels.field.multiKeyHint')}>
              <RadioGroup
                value={form.multiKeyMode}
                onChange={(event) => set('multiKeyMode')(event.target.value as ChannelForm['multiKeyMode'])}
                options={[
                  { label: t('channels.field.multiKeyModes.random'), value: 'random' },
                  { label: t('channels.field.multiKeyModes.polling'), value: 'polling' },
                ]}
              />
            </FormRow>
          )}
          {form.type === VERTEX_AI && (
            <FormRow label={t('channels.field.vertexKeyType')} hint={t(`channels.field.vertexKeyTypeHint.${form.vertexKeyType}`)}>
              <RadioGroup
                type="button"
                value={form.vertexKeyType}
                onChange={(event) => set('vertexKeyType')(event.target.value as VertexKeyType)}
                options={[
                  { label: t('channels.field.vertexKeyTypes.json'), value: 'json' },
                  { label: t('channels.field.vertexKeyTypes.api_key'), value: 'api_key' },
                ]}
                data-testid="channel-vertex-key-type"
              />
            </FormRow>
          )}
          <FormRow label={t('channels.field.key')} hint={creating ? keyHelp : t('channels.field.keyEditHint')}>
            {isRoot && !creating && channelId !== null && (
              <div style={{ marginBottom: 8 }}>
                <RevealKeyButton channelId={channelId} />
              </div>
            )}
            {creating && form.keyMode !== 'single' ? (
              <TextArea
                value={form.key}
                onChange={set('key')}
                placeholder={t('channels.field.keyLines')}
                autosize={{ minRows: 3, maxRows: 10 }}
                data-testid="channel-key"
              />
            ) : (
              <Input
                mode="password"
                value={form.key}
                onChange={set('key')}
                placeholder={keyHelp ?? t('channels.field.key')}
                data-testid="channel-key"
              />
            )}
          </FormRow>
          <FormRow
            label={form.type === 3 ? t('channels.field.azureEndpoint') : t('channels.field.baseUrl')}
            hint={baseUrlHint(form.type, info?.baseUrl, t)}
          >
            <Input
              value={form.base_url}
              onChange={set('base_url')}
              placeholder={info?.baseUrl || 'https://'}
              data-testid="channel-base-url"
            />
          </FormRow>
          {(info?.otherHelp || form.other) && (
            <FormRow label={form.type === 3 ? t('channels.field.azureVersion') : t('channels.field.other')} hint={info?.otherHelp}>
              <Input
                value={form.other}
                onChange={set('other')}
                placeholder={info?.otherDefault ?? (form.type === 3 ? '2025-04-01-preview' : '')}
                data-testid="channel-other"
              />
            </FormRow>
          )}
          {form.type === 1 && (
            <FormRow label={t('channels.field.organization')} hint={t('channels.field.organizationHint')}>
              <Input value={form.openai_organization} onChange={set('openai_organization')} placeholder="org-..." />
            </FormRow>
          )}
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
          <ModelsField
            models={form.models}
            onChange={set('models')}
            relatedModels={info?.models ?? []}
            allModels={allModels}
            fetchUpstream={fetchUpstream}
          />
          {!creating && form.type === 4 && <OllamaModels channelId={channelId as number} />}
          <JsonField
            label={t('channels.field.modelMapping')}
            value={form.model_mapping}
            onChange={set('model_mapping')}
            placeholder={t('channels.field.modelMappingPlaceholder')}
            hint={t('channels.field.modelMappingHint')}
            template={'{\n  "gpt-3.5-turbo": "gpt-4o-mini"\n}'}
            testId="channel-model-mapping"
          />
          <FormRow label={t('channels.field.testModel')} hint={t('channels.field.testModelHint')}>
            <Input value={form.test_model} onChange={set('test_model')} placeholder={form.models[0] ?? 'gpt-4o-mini'} />
          </FormRow>
          <Space wrap style={{ marginBottom: 16 }} spacing={24}>
            <Space vertical align="start" spacing={4}>
              <span>{t('channels.column.priority')}</span>
              <InputNumber
                value={form.priority}
                min={-999}
                precision={0}
                onChange={(value) => set('priority')(Number(value) || 0)}
                data-testid="channel-priority"
              />
            </Space>
            <Space vertical align="start" spacing={4}>
              <span>{t('channels.column.weight')}</span>
              <InputNumber value={form.weight} min={0} precision={0} onChange={(value) => set('weight')(Number(value) || 0)} />
            </Space>
            <Space vertical align="start" spacing={4}>
              <span>{t('channels.field.autoBan')}</span>
              <Switch checked={form.auto_ban} onChange={set('auto_ban')} />
            </Space>
          </Space>
          <FormRow label={t('channels.column.tag')}>
            <Input value={form.tag} onChange={set('tag')} data-testid="channel-tag" />
          </FormRow>
          <FormRow label={t('channels.field.remark')}>
            <Input value={form.remark} onChange={set('remark')} maxLength={255} />
          </FormRow>
          <JsonField
            label={t('channels.field.statusCodeMapping')}
            value={form.status_code_mapping}
            onChange={set('status_code_mapping')}
            placeholder='{"400": "500"}'
            hint={t('channels.field.statusCodeMappingHint')}
          />
          <JsonField
            label={t('channels.field.paramOverride')}
            value={form.param_override}
            onChange={set('param_override')}
            placeholder='{"temperature": 0}'
            hint={t('channels.field.paramOverrideHint')}
          />
          <JsonField
            label={t('channels.field.headerOverride')}
            value={form.header_override}
            onChange={set('header_override')}
            placeholder='{"User-Agent": "my-gateway"}'
            hint={t('channels.field.headerOverrideHint')}
          />
        </>
      )}
    </FormSheet>
  );
}

function baseUrlHint(type: number, defaultUrl: string | undefined, t: (key: string, options?: Record<string, unknown>) => string): string {
  if (type === 3) return t('channels.field.azureHint');
  if (type === 8) return t('channels.field.customHint');
  return defaultUrl ? t('channels.field.baseUrlDefault', { url: defaultUrl }) : t('channels.field.baseUrlRequired');
}
