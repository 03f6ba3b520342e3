import { describe, expect, it } from 'vitest';
import { changedKeys, checkOption, normaliseJson } from './option-checks';

describe('option checks', () => {
  it('refuses invalid JSON, numbers out of range and non-http URLs', () => {
    expect(checkOption('ModelRatio', '{"gpt-4o": 2.5')).toEqual({ key: 'ModelRatio', message: 'json' });
    expect(checkOption('ModelRatio', '{"gpt-4o": 2.5}')).toBeNull();
    expect(checkOption('RetryTimes', '11')).toMatchObject({ message: 'range', min: 0, max: 10 });
    expect(checkOption('RetryTimes', '1.5')).toMatchObject({ message: 'number' });
    expect(checkOption('ModelRequestRateLimitSuccessCount', '0')).toMatchObject({ message: 'range', min: 1 });
    expect(checkOption('claude.thinking_adapter_budget_tokens_percentage', '0.05')).toMatchObject({ message: 'range' });
    expect(checkOption('claude.thinking_adapter_budget_tokens_percentage', '0.5')).toBeNull();
    expect(checkOption('gemini.thinking_adapter_budget_tokens_percentage', '1.5')).toMatchObject({ message: 'range', min: 0.1, max: 1 });
    expect(checkOption('gemini.thinking_adapter_budget_tokens_percentage', '0.6')).toBeNull();
    expect(checkOption('AudioRatio', '{"gpt-4o-realtime": 8')).toEqual({ key: 'AudioRatio', message: 'json' });
    expect(checkOption('AudioCompletionRatio', '{"gpt-4o-realtime": 2}')).toBeNull();
    expect(checkOption('ServerAddress', 'example.com')).toMatchObject({ message: 'url' });
    expect(checkOption('ServerAddress', '')).toBeNull();
    expect(checkOption('SystemName', 'anything')).toBeNull();
  });

  it('counts only real changes; an empty secret keeps the stored one', () => {
    const stored = { SystemName: 'A', Logo: '', SMTPToken: '' };
    expect(changedKeys(['SystemName', 'Logo', 'SMTPToken'], stored, { SystemName: 'A', Logo: '', SMTPToken: '' })).toEqual([]);
    expect(changedKeys(['SystemName', 'Logo', 'SMTPToken'], stored, { SystemName: 'B', Logo: '', SMTPToken: 'secret' })).toEqual([
      'SystemName',
      'SMTPToken',
    ]);
  });

  it('normalises JSON so formatting alone is no change', () => {
    expect(normaliseJson('{\n  "a": 1\n}')).toBe('{"a":1}');
    expect(normaliseJson('not json')).toBe('not json');
  });
});
