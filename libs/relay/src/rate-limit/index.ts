export { applyWindow, MODEL_WINDOW_OP, ModelRateLimiter, ModelRateLimitError } from './model-rate-limiter.js';
export { SlidingWindowLog } from './sliding-window.js';
