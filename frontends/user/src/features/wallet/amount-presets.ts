import type { TopUpInfo } from './api';

/** The amounts offered as buttons: the server's list, else multiples of the minimum (as new-api's console). */
export function amountPresets(info: Pick<TopUpInfo, 'amount_options' | 'min_topup'>): number[] {
  const fromServer = (info.amount_options ?? []).filter((value) => Number.isInteger(value) && value > 0);
  if (fromServer.length) return fromServer;
  const min = Math.max(1, Math.ceil(info.min_topup || 1));
  return [1, 5, 10, 30, 50, 100].map((factor) => min * factor);
}
