import { useTranslation } from 'react-i18next';
import { NumberField, Section, SwitchField, TextAreaField } from '../fields';
import { optionLabel } from '../label';
import type { Settings } from '../useSettings';

const RATE_LIMIT = [
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
  'ModelRequestRateLimitGroup',
] as const;
const GEMINI = [
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.thinking_adapter_enabled',
  'gemini.thinking_adapter_budget_tokens_percentage',
  'gemini.supported_imagine_models',
  'gemini.function_call_thought_signature_enabled',
  'gemini.remove_function_response_id_enabled',
] as const;
const CLAUDE = [
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
] as const;
const GLOBAL = ['global.pass_through_request_enabled'] as const;

/** ?tab=ratelimit: per-user model request limits (spec 001 §5: duration ≥ 0, count ≥ 0, success count ≥ 1). */
export function RateLimitSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const label = (key: string) => optionLabel(t, key);
  return (
    <Section title={t('settings.section.rateLimit')} settings={settings} keys={RATE_LIMIT} testId="section-ratelimit">
      <SwitchField settings={settings} name="ModelRequestRateLimitEnabled" label={label('ModelRequestRateLimitEnabled')} />
      <NumberField settings={settings} name="ModelRequestRateLimitDurationMinutes" label={label('ModelRequestRateLimitDurationMinutes')} />
      <NumberField
        settings={settings}
        name="ModelRequestRateLimitCount"
        label={label('ModelRequestRateLimitCount')}
        hint={t('settings.hint.rateLimitCount')}
      />
      <NumberField settings={settings} name="ModelRequestRateLimitSuccessCount" label={label('ModelRequestRateLimitSuccessCount')} />
      <TextAreaField
        settings={settings}
        name="ModelRequestRateLimitGroup"
        label={label('ModelRequestRateLimitGroup')}
        hint={t('settings.hint.rateLimitGroup')}
        placeholder='{"vip": [200, 100]}'
      />
    </Section>
  );
}

/** ?tab=models: provider-specific settings (Gemini, Claude, pass-through). */
export function ModelSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const label = (key: string) => optionLabel(t, key);
  return (
    <>
      <Section title="Gemini" settings={settings} keys={GEMINI} testId="section-gemini">
        <TextAreaField settings={settings} name="gemini.safety_settings" label={label('gemini.safety_settings')} />
        <TextAreaField settings={settings} name="gemini.version_settings" label={label('gemini.version_settings')} />
        <SwitchField
          settings={settings}
          name="gemini.thinking_adapter_enabled"
          label={label('gemini.thinking_adapter_enabled')}
          hint={t('settings.hint.geminiThinkingAdapter')}
        />
        <NumberField
          settings={settings}
          name="gemini.thinking_adapter_budget_tokens_percentage"
          label={label('gemini.thinking_adapter_budget_tokens_percentage')}
          hint={t('settings.hint.geminiThinkingBudget')}
        />
        <TextAreaField
          settings={settings}
          name="gemini.supported_imagine_models"
          label={label('gemini.supported_imagine_models')}
          hint={t('settings.hint.geminiImagineModels')}
        />
        <SwitchField
          settings={settings}
          name="gemini.function_call_thought_signature_enabled"
          label={label('gemini.function_call_thought_signature_enabled')}
        />
        <SwitchField
          settings={settings}
          name="gemini.remove_function_response_id_enabled"
          label={label('gemini.remove_function_response_id_enabled')}
        />
      </Section>
      <Section title="Claude" settings={settings} keys={CLAUDE}>
        <TextAreaField settings={settings} name="claude.model_headers_settings" label={label('claude.model_headers_settings')} />
        <TextAreaField settings={settings} name="claude.default_max_tokens" label={label('claude.default_max_tokens')} />
        <SwitchField settings={settings} name="claude.thinking_adapter_enabled" label={label('claude.thinking_adapter_enabled')} />
        <NumberField
          settings={settings}
          name="claude.thinking_adapter_budget_tokens_percentage"
          label={label('claude.thinking_adapter_budget_tokens_percentage')}
          hint={t('settings.hint.thinkingBudget')}
        />
      </Section>
      <Section title={t('settings.section.global')} settings={settings} keys={GLOBAL}>
        <SwitchField settings={settings} name="global.pass_through_request_enabled" label={label('global.pass_through_request_enabled')} />
      </Section>
    </>
  );
}
