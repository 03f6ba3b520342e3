import { api, type Page } from '@console/kit';
import type { CreateRedemptionRequest, RedemptionView, UpdateRedemptionRequest } from '../../contracts';

export const RedemptionStatus = { unused: 1, disabled: 2, used: 3 } as const;

/** Create sends the schema's input (count and expiry may be left to their defaults). */
export type NewRedemption = Pick<CreateRedemptionRequest, 'name' | 'quota' | 'count' | 'expired_time'>;

export const redemptionsApi = {
  list: (page: number, pageSize: number, keyword: string) =>
    keyword
      ? api.get<Page<RedemptionView>>('/api/redemption/search', { query: { keyword, p: page, page_size: pageSize } })
      : api.get<Page<RedemptionView>>('/api/redemption/', { query: { p: page, page_size: pageSize } }),
  get: (id: number) => api.get<RedemptionView>(`/api/redemption/${id}`),
  /** The new codes' keys, shown once. */
  create: (input: NewRedemption) => api.post<string[]>('/api/redemption/', input),
  update: (input: UpdateRedemptionRequest) => api.put<RedemptionView>('/api/redemption/', input),
  setStatus: (id: number, status: 1 | 2) => api.put<RedemptionView>('/api/redemption/', { id, status }, { query: { status_only: true } }),
  remove: (id: number) => api.delete<null>(`/api/redemption/${id}`),
  removeInvalid: () => api.delete<number>('/api/redemption/invalid'),
};

/** A used or expired code can be neither enabled nor edited (spec 001 §4). */
export function isExpired(code: RedemptionView, now = Math.floor(Date.now() / 1000)): boolean {
  return code.expired_time !== 0 && code.expired_time < now;
}

/** Keys as a text file, one per line, for the "download" button. */
export function downloadKeys(keys: string[], fileName: string): void {
  const url = URL.createObjectURL(new Blob([`${keys.join('\n')}\n`], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
