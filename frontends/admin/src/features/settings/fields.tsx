import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Input, Space, Typography } from '@console/kit';
import { InputNumber, Select, Switch, TextArea } from '@console/kit/data';
import { JSON_OPTIONS, NUMBER_RANGES, SECRET_OPTIONS, checkOption } from './option-checks';
import type { Settings } from './useSettings';

interface FieldProps {
  settings: Settings;
  name: string;
  label: string;
  hint?: ReactNode;
}

const fieldStyle = { marginBottom: 14 } as const;

/** A labelled field with an optional hint below it (every settings field, and the forms of the settings page). */
export function Label({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div style={fieldStyle}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 4 }}>
        {label}
      </Typography.Text>
      {children}
      {hint && (
        <Typography.Text type="tertiary" size="small" style={{ display: 'block', marginTop: 2 }}>
          {hint}
        </Typography.Text>
      )}
    </div>
  );
}

/** A boolean option ('true'/'false'); `onToggle` may veto the change (e.g. confirm before disabling). */
export function SwitchField({ settings, name, label, hint, onToggle }: FieldProps & { onToggle?(next: boolean, apply: () => void): void }) {
  const checked = settings.draft[name] === 'true';
  const apply = (next: boolean) => settings.set(name, String(next));
  return (
    <div style={{ ...fieldStyle, display: 'flex', alignItems: 'center', gap: 8 }}>
      <Switch
        checked={checked}
        onChange={(next) => (onToggle ? onToggle(next, () => apply(next)) : apply(next))}
        data-testid={`option-${name}`}
      />
      <Typography.Text>{label}</Typography.Text>
      {hint && (
        <Typography.Text type="tertiary" size="small">
          {hint}
        </Typography.Text>
      )}
    </div>
  );
}

export function TextField({ settings, name, label, hint, placeholder }: FieldProps & { placeholder?: string }) {
  const secret = SECRET_OPTIONS.has(name);
  const { t } = useTranslation('admin');
  return (
    <Label label={label} hint={hint}>
      <Input
        mode={secret ? 'password' : undefined}
        value={settings.draft[name] ?? ''}
        onChange={(value) => settings.set(name, value)}
        placeholder={secret ? t('settings.secretPlaceholder') : placeholder}
        data-testid={`option-${name}`}
      />
    </Label>
  );
}

export function NumberField({ settings, name, label, hint }: FieldProps) {
  const range = NUMBER_RANGES[name] ?? {};
  return (
    <Label label={label} hint={hint}>
      <InputNumber
        value={settings.draft[name] ?? ''}
        min={range.min}
        max={range.max}
        precision={range.integer ? 0 : undefined}
        onChange={(value) => settings.set(name, value === '' || value === undefined ? '' : String(value))}
        style={{ width: '100%' }}
        data-testid={`option-${name}`}
      />
    </Label>
  );
}

export function SelectField({ settings, name, label, hint, options }: FieldProps & { options: { label: string; value: string }[] }) {
  return (
    <Label label={label} hint={hint}>
      <Select
        value={settings.draft[name] ?? ''}
        onChange={(value) => settings.set(name, String(value))}
        optionList={options}
        style={{ width: '100%' }}
      />
    </Label>
  );
}

/** Long text; JSON options say at once when the text does not parse (spec: 'not a valid JSON string'). */
export function TextAreaField({
  settings,
  name,
  label,
  hint,
  rows = 4,
  placeholder,
}: FieldProps & { rows?: number; placeholder?: string }) {
  const { t } = useTranslation('admin');
  const value = settings.draft[name] ?? '';
  const invalid = JSON_OPTIONS.has(name) && checkOption(name, value) !== null;
  const format = () => {
    try {
      settings.set(name, JSON.stringify(JSON.parse(value), null, 2));
    } catch {
      // Not JSON: the field already says so.
    }
  };
  return (
    <Label
      label={label}
      hint={invalid ? <Typography.Text type="danger">{t('settings.invalid.json', { key: name })}</Typography.Text> : hint}
    >
      <TextArea
        value={value}
        onChange={(next) => settings.set(name, next)}
        autosize={{ minRows: rows, maxRows: 16 }}
        placeholder={placeholder}
        validateStatus={invalid ? 'error' : 'default'}
        style={JSON_OPTIONS.has(name) ? { fontFamily: 'monospace' } : undefined}
        data-testid={`option-${name}`}
      />
      {JSON_OPTIONS.has(name) && !invalid && (
        <Typography.Text link size="small" onClick={format}>
          {t('settings.formatJson')}
        </Typography.Text>
      )}
    </Label>
  );
}

/** One titled block of options with its own save button (saves only its keys that changed). */
export function Section({
  title,
  settings,
  keys,
  children,
  extra,
  onSave,
  testId,
}: {
  title: string;
  settings: Settings;
  keys: readonly string[];
  children: ReactNode;
  extra?: ReactNode;
  /** Replaces the plain save (e.g. checks across fields first). */
  onSave?(): Promise<unknown>;
  testId?: string;
}) {
  const { t } = useTranslation('admin');
  return (
    <Card title={title} style={{ marginBottom: 16 }} data-testid={testId}>
      {children}
      <Space>
        <Button
          theme="solid"
          onClick={() => void (onSave ? onSave() : settings.save(keys))}
          data-testid={testId ? `${testId}-save` : undefined}
        >
          {t('settings.save', { section: title })}
        </Button>
        {extra}
      </Space>
    </Card>
  );
}
