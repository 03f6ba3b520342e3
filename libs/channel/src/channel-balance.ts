import { BusinessError } from '@gw/core';
import type { BalanceKind } from '@gw/contracts';

function amount(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(n)) throw new BusinessError('balance query failed: unexpected answer');
  return n;
}

/**
 * Reads a balance (USD, or the provider's currency as new-api does) from a provider's answer
 * (new-api controller/channel-billing.go). `cnyPerUsd` converts Moonshot's CNY balance.
 */
export function parseBalance(kind: Exclude<BalanceKind, 'openai'>, body: any, cnyPerUsd: number): number {
  switch (kind) {
    case 'credit_grants_remaining':
      return amount(body?.total_remaining);
    case 'credit_grants_available':
      return amount(body?.total_available);
    case 'siliconflow':
      if (body?.code !== 20000) throw new BusinessError(`balance query failed: ${String(body?.message ?? `code ${body?.code}`)}`);
      return amount(body?.data?.totalBalance);
    case 'deepseek': {
      const infos: any[] = Array.isArray(body?.balance_infos) ? body.balance_infos : [];
      const cny = infos.find((info) => info?.currency === 'CNY');
      if (!cny) throw new BusinessError('balance query failed: currency CNY not found');
      return amount(cny.total_balance);
    }
    case 'openrouter':
      return amount(body?.data?.total_credits) - amount(body?.data?.total_usage);
    case 'moonshot': {
      if (body?.status !== true || body?.code !== 0) throw new BusinessError(`balance query failed: code ${String(body?.code)}`);
      const cnyBalance = amount(body?.data?.available_balance);
      return cnyPerUsd > 0 ? cnyBalance / cnyPerUsd : cnyBalance;
    }
  }
}

/** OpenAI billing: the usage window starts this month with a payment method, else 100 days ago. */
export function openAiUsageWindow(hasPaymentMethod: boolean, now = new Date()): { start_date: string; end_date: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const start = hasPaymentMethod ? `${day(now).slice(0, 7)}-01` : day(new Date(now.getTime() - 100 * 24 * 3600 * 1000));
  return { start_date: start, end_date: day(new Date(now.getTime() + 24 * 3600 * 1000)) };
}

export const roundBalance = (value: number) => Math.round(value * 1e6) / 1e6;
