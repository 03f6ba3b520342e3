import { NotFoundError } from '@gw/core';

/** A path id: anything but a positive integer reads as a token that does not exist. */
export function tokenId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new NotFoundError('token not found');
  return Number(raw);
}
