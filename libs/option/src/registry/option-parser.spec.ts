import { describe, expect, it } from 'vitest';
import { OPTION_REGISTRY, isOptionKey } from './option-registry.js';
import { parseOptionValue } from './option-parser.js';

const parse = (key: keyof typeof OPTION_REGISTRY, raw: string) => parseOptionValue(key, OPTION_REGISTRY[key], raw);

describe('option registry', () => {
  it('parses every default to a valid value', () => {
    for (const [key, def] of Object.entries(OPTION_REGISTRY)) {
      expect(parseOptionValue(key, def, def.default), key).toMatchObject({ ok: true });
    }
  });

  it('knows every option key of both specs', () => {
    const keys = [
      'PasswordLoginEnabled',
      'oidc.enabled',
      'SMTPSSLEnabled',
      'TopupGroupRatio',
      'EmailDomainWhitelist',
      'general_setting.docs_link',
      'QuotaPerUnit',
      'RetryTimes',
      'DataExportInterval',
      'DataExportDefaultTime',
      'ChannelDisableThreshold',
      'AutomaticDisableKeywords',
      'ModelPrice',
      'ModelRatio',
      'CompletionRatio',
      'CacheRatio',
      'GroupRatio',
      'UserUsableGroups',
      'Chats',
      'StreamCacheQueueLength',
      'ModelRequestRateLimitSuccessCount',
      'gemini.safety_settings',
      'claude.thinking_adapter_budget_tokens_percentage',
      'global.pass_through_request_enabled',
      'MjActionCheckSuccessEnabled',
      'QuotaForInvitee',
      'PreConsumedQuota',
    ];
    expect(keys.filter((key) => !isOptionKey(key))).toEqual([]);
  });

  it('ships the defaults the spec names', () => {
    expect(OPTION_REGISTRY.QuotaPerUnit.default).toBe('500000');
    expect(OPTION_REGISTRY.Price.default).toBe('7.3');
    expect(OPTION_REGISTRY.MinTopUp.default).toBe('1');
    expect(OPTION_REGISTRY.DataExportInterval.default).toBe('5');
    expect(OPTION_REGISTRY.DataExportDefaultTime.default).toBe('hour');
    expect(OPTION_REGISTRY.RetryTimes.default).toBe('0');
    const ratios = JSON.parse(OPTION_REGISTRY.ModelRatio.default) as Record<string, number>;
    expect(ratios['gpt-4o-mini']).toBe(0.075);
    expect(JSON.parse(OPTION_REGISTRY.GroupRatio.default)).toEqual({ default: 1, vip: 1, svip: 1 });
  });

  it('rejects malformed values with a message naming the key', () => {
    expect(parse('ModelRatio', '{bad')).toEqual({ ok: false, message: 'ModelRatio is not a valid JSON string' });
    expect(parse('ModelRatio', '{"a":-1}')).toMatchObject({ ok: false });
    expect(parse('RegisterEnabled', 'yes')).toEqual({ ok: false, message: "RegisterEnabled must be 'true' or 'false'" });
    expect(parse('RetryTimes', '1.5')).toMatchObject({ ok: false });
    expect(parse('DataExportInterval', '0')).toEqual({ ok: false, message: 'DataExportInterval must be at least 1' });
    expect(parse('claude.thinking_adapter_budget_tokens_percentage', '1.5')).toMatchObject({ ok: false });
    expect(parse('DataExportDefaultTime', 'year')).toMatchObject({ ok: false });
    expect(parse('oidc.well_known', 'ftp://x')).toMatchObject({ ok: false });
  });

  it('parses good values to their types', () => {
    expect(parse('RegisterEnabled', 'false')).toEqual({ ok: true, value: false });
    expect(parse('Price', '8.5')).toEqual({ ok: true, value: 8.5 });
    expect(parse('GroupRatio', '{"vip":2}')).toEqual({ ok: true, value: { vip: 2 } });
  });
});
