import { useTranslation } from 'react-i18next';
import { FormRow, Typography } from '@console/kit';
import { TextArea } from '@console/kit/data';
import { isJsonObjectText } from '../channel-form';

interface JsonFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  placeholder: string;
  hint?: string;
  /** Shown under the field as a click that fills it in. */
  template?: string;
  testId?: string;
}

/** A JSON-object text field that says at once when its text is not valid JSON. */
export function JsonField({ label, value, onChange, placeholder, hint, template, testId }: JsonFieldProps) {
  const { t } = useTranslation('admin');
  const valid = isJsonObjectText(value);
  return (
    <FormRow
      label={label}
      hint={valid ? hint : <Typography.Text type="danger">{t('channels.error.json')}</Typography.Text>}
      extra={
        template ? (
          <Typography.Text link onClick={() => onChange(template)}>
            {t('channels.field.fillTemplate')}
          </Typography.Text>
        ) : undefined
      }
    >
      <TextArea
        value={value}
        onChange={onChange}
        placeholder={placeholder}
        autosize={{ minRows: 2, maxRows: 10 }}
        validateStatus={valid ? 'default' : 'error'}
        data-testid={testId}
      />
    </FormRow>
  );
}
