import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { SearchLimitGuard } from './search-limit.guard.js';

export const RATE_LIMIT_CLASS = 'gw:rate-limit-class';
export type RateLimitClass = 'critical' | 'search';

/** Login, register, setup, password reset, key reveal: new-api's CriticalRateLimit (20 per 20 min per IP). */
export const CriticalRateLimit = () => SetMetadata(RATE_LIMIT_CLASS, 'critical' satisfies RateLimitClass);
/** Token and own-log search: new-api's SearchRateLimit (10 per minute per user id; see SearchLimitGuard). */
export const SearchRateLimit = () =>
  applyDecorators(SetMetadata(RATE_LIMIT_CLASS, 'search' satisfies RateLimitClass), UseGuards(SearchLimitGuard));
