import { describe, expect, it } from 'vitest';
import { buildBalanceRequest } from '@gw/upstream';
import { openAiUsageWindow, parseBalance } from './channel-balance.js';
import { redactKey } from './redact.js';

const target = (type: number, baseUrl = '') => ({ id: 1, type, key: 'sk-balance', baseUrl, other: '' });

describe('provider balances', () => {
  it('queries each provider on the channel origin with the bearer key', () => {
    const cases: [number, string][] = [
      [43, 'https://api.deepseek.com/user/balance'],
      [40, 'https://api.siliconflow.cn/v1/user/info'],
      [20, 'https://openrouter.ai/api/v1/credits'],
      [25, 'https://api.moonshot.cn/v1/users/me/balance'],
      [12, 'https://api.api2gpt.com/dashboard/billing/credit_grants'],
      [13, 'https://api.aigc2d.com/dashboard/billing/credit_grants'],
    ];
    for (const [type, url] of cases) {
      expect(buildBalanceRequest(target(type))).toEqual({
        url,
        method: 'GET',
        headers: { accept: 'application/json', authorization: 'Bearer sk-balance' },
      });
    }
    expect(buildBalanceRequest(target(43, 'http://proxy.local:8080')).url).toBe('http://proxy.local:8080/user/balance');
    for (const type of [1, 3, 4, 14, 24, 8]) expect(() => buildBalanceRequest(target(type, 'http://h'))).toThrow(/not supported/);
  });

  it('reads every provider answer shape', () => {
    expect(
      parseBalance(
        'deepseek',
        {
          is_available: true,
          balance_infos: [
            { currency: 'USD', total_balance: '1' },
            { currency: 'CNY', total_balance: '42.50' },
          ],
        },
        7.3,
      ),
    ).toBe(42.5);
    expect(() => parseBalance('deepseek', { balance_infos: [{ currency: 'USD', total_balance: '1' }] }, 7.3)).toThrow(/CNY not found/);
    expect(parseBalance('siliconflow', { code: 20000, data: { totalBalance: '12.3' } }, 7.3)).toBe(12.3);
    expect(() => parseBalance('siliconflow', { code: 401, message: 'Invalid token' }, 7.3)).toThrow(/Invalid token/);
    expect(parseBalance('openrouter', { data: { total_credits: 20, total_usage: 5.5 } }, 7.3)).toBe(14.5);
    expect(parseBalance('moonshot', { code: 0, status: true, data: { available_balance: 73 } }, 7.3)).toBeCloseTo(10);
    expect(() => parseBalance('moonshot', { code: 5, status: false }, 7.3)).toThrow(/balance query failed/);
    expect(parseBalance('credit_grants_remaining', { total_remaining: 3 }, 7.3)).toBe(3);
    expect(parseBalance('credit_grants_available', { total_available: 4 }, 7.3)).toBe(4);
    expect(() => parseBalance('credit_grants_available', { total_available: 'lots' }, 7.3)).toThrow(/unexpected answer/);
    expect(() => parseBalance('openrouter', null, 7.3)).toThrow(/unexpected answer/);
  });

  it('uses the OpenAI usage window of new-api', () => {
    const now = new Date('2026-03-15T10:00:00Z');
    expect(openAiUsageWindow(true, now)).toEqual({ start_date: '2026-03-01', end_date: '2026-03-16' });
    expect(openAiUsageWindow(false, now)).toEqual({ start_date: '2025-12-05', end_date: '2026-03-16' });
  });
});

describe('key redaction', () => {
  it('removes whole keys and each part of a multi-part key', () => {
    expect(redactKey('Incorrect API key provided: sk-abcdef123456.', 'sk-abcdef123456')).toBe('Incorrect API key provided: sk-***.');
    expect(redactKey('bad secret SECRET-PART-2 for app', 'appid1|SECRET-PART-2|apikey-3')).toBe('bad secret SEC*** for app');
    expect(redactKey('nothing to hide', 'sk-abcdef123456')).toBe('nothing to hide');
    expect(redactKey('short k', 'k')).toBe('short k');
  });
});
