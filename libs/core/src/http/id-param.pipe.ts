import { Injectable, type PipeTransform } from '@nestjs/common';
import type { AppError } from '../errors/app-error.js';

/**
 * A row id from a path: 1 to 999,999,999, as the token, channel and redemption routes already accept.
 * Nest's ParseIntPipe takes any integer, and an id past the INTEGER column's range made PostgreSQL fail
 * the query (a 500) instead of finding nothing.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  constructor(private readonly notFound: () => AppError) {}

  transform(value: string): number {
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw this.notFound();
    return Number(value);
  }
}

/** `@Param('id', idParam(() => new NotFoundError('user does not exist')))`. */
export const idParam = (notFound: () => AppError) => new IdParamPipe(notFound);
