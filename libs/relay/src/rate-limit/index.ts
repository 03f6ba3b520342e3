export { ModelRateLimiter, ModelRateLimitError } from './model-rate-limiter.js';
export { SlidingWindowLog } from './sliding-window.js';
