import { SetMetadata } from '@nestjs/common';

export const RATE_LIMIT_CLASS = 'gw:rate-limit-class';
export type RateLimitClass = 'critical' | 'search';

/** Login, register, setup, password reset, key reveal: new-api's CriticalRateLimit (20 per 20 min per IP). */
export const CriticalRateLimit = () => SetMetadata(RATE_LIMIT_CLASS, 'critical' satisfies RateLimitClass);
/** Token and log search: new-api's SearchRateLimit. */
export const SearchRateLimit = () => SetMetadata(RATE_LIMIT_CLASS, 'search' satisfies RateLimitClass);
