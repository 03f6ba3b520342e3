import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Modal, Space, Toast, Typography } from '@console/kit';
import { InputNumber, Select, Switch, TextArea } from '@console/kit/data';
import {
  type AffinityRuleForm,
  type AffinityRuleView,
  formToRule,
  KEY_SOURCE_TYPES,
  type KeySourceRow,
  newRuleForm,
  ruleToForm,
} from './affinity-rule-form';
import { Label } from '../fields';

/**
 * Adds or edits one channel affinity rule (new-api's rule editor): the model, path and user-agent filters, the
 * key sources in order, the TTL and switches, and an optional param override template. `onSubmit` gets the rule.
 */
export function AffinityRuleModal({
  rule,
  otherNames,
  visible,
  saving,
  onSubmit,
  onCancel,
}: {
  rule: AffinityRuleView | undefined;
  otherNames: readonly string[];
  visible: boolean;
  saving: boolean;
  onSubmit(rule: AffinityRuleView): void;
  onCancel(): void;
}) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<AffinityRuleForm>(newRuleForm);
  useEffect(() => {
    if (visible) setForm(rule ? ruleToForm(rule) : newRuleForm());
  }, [visible, rule]);
  const patch = (fields: Partial<AffinityRuleForm>) => setForm((current) => ({ ...current, ...fields }));
  const patchSource = (index: number, fields: Partial<KeySourceRow>) =>
    patch({ sources: form.sources.map((row, i) => (i === index ? { ...row, ...fields } : row)) });

  const submit = () => {
    const result = formToRule(form, otherNames);
    if ('problem' in result) {
      Toast.error(t(`settings.affinity.rule.error.${result.problem}`));
      return;
    }
    onSubmit(result.rule);
  };

  const tr = (key: string) => t(`settings.affinity.rule.${key}`);
  return (
    <Modal
      title={rule ? tr('editTitle') : tr('addTitle')}
      visible={visible}
      onOk={submit}
      onCancel={onCancel}
      confirmLoading={saving}
      okText={tr('save')}
      okButtonProps={{ 'data-testid': 'affinity-rule-save' } as Record<string, string>}
      width={640}
    >
      <div data-testid="affinity-rule-modal">
        <Label label={tr('name')}>
          <Input value={form.name} onChange={(name) => patch({ name })} data-testid="affinity-rule-name" />
        </Label>
        <Label label={tr('models')} hint={tr('linesHint')}>
          <TextArea
            value={form.models}
            onChange={(models) => patch({ models })}
            autosize={{ minRows: 2 }}
            data-testid="affinity-rule-models"
          />
        </Label>
        <Label label={tr('paths')} hint={tr('optionalLines')}>
          <TextArea value={form.paths} onChange={(paths) => patch({ paths })} autosize={{ minRows: 1 }} data-testid="affinity-rule-paths" />
        </Label>
        <Label label={tr('agents')} hint={tr('optionalLines')}>
          <TextArea value={form.agents} onChange={(agents) => patch({ agents })} autosize={{ minRows: 1 }} />
        </Label>
        <Label label={tr('sources')} hint={tr('sourcesHint')}>
          {form.sources.map((row, i) => (
            <Space key={i} style={{ marginBottom: 6 }} data-testid={`affinity-rule-source-${i}`}>
              <Select
                value={row.type}
                onChange={(type) => patchSource(i, { type: type as KeySourceRow['type'] })}
                optionList={KEY_SOURCE_TYPES.map((value) => ({ value, label: tr(`source.${value}`) }))}
                style={{ width: 150 }}
              />
              <Input
                value={row.field}
                onChange={(field) => patchSource(i, { field })}
                placeholder={row.type === 'gjson' ? 'prompt_cache_key' : row.type === 'request_header' ? 'X-Session-Id' : 'token_id'}
                data-testid={`affinity-rule-source-field-${i}`}
              />
              <Input value={row.nested} onChange={(nested) => patchSource(i, { nested })} placeholder={tr('nested')} />
              <Button theme="borderless" type="danger" onClick={() => patch({ sources: form.sources.filter((_, j) => j !== i) })}>
                {tr('remove')}
              </Button>
            </Space>
          ))}
          <Button size="small" onClick={() => patch({ sources: [...form.sources, { type: 'gjson', field: '', nested: '' }] })}>
            {tr('addSource')}
          </Button>
        </Label>
        <Label label={tr('valueRegex')} hint={tr('optional')}>
          <Input value={form.valueRegex} onChange={(valueRegex) => patch({ valueRegex })} />
        </Label>
        <Label label={tr('ttl')} hint={tr('ttlHint')}>
          <InputNumber value={form.ttl} min={0} max={2592000} onNumberChange={(ttl) => patch({ ttl: Number(ttl) || 0 })} />
        </Label>
        {(
          [
            ['skipRetry', 'skipRetry'],
            ['includeName', 'includeName'],
            ['includeGroup', 'includeGroup'],
            ['includeModel', 'includeModel'],
          ] as const
        ).map(([field, label]) => (
          <div key={field} style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 8 }}>
            <Switch checked={form[field]} onChange={(checked) => patch({ [field]: checked })} data-testid={`affinity-rule-${field}`} />
            <Typography.Text>{tr(label)}</Typography.Text>
          </div>
        ))}
        <Label label={tr('template')} hint={tr('templateHint')}>
          <TextArea
            value={form.template}
            onChange={(template) => patch({ template })}
            autosize={{ minRows: 2, maxRows: 10 }}
            style={{ fontFamily: 'monospace' }}
          />
        </Label>
      </div>
    </Modal>
  );
}
