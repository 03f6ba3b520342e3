export * from './upstream.types.js';
export { UpstreamModule } from './upstream.module.js';
export { UpstreamClient, toUpstreamError, DEFAULT_HEADERS_TIMEOUT_SECONDS } from './upstream.client.js';
export { addressRefused } from './public-only.js';
export type { SocketOpening } from './upstream-socket.js';
export {
  isOpenAiCompatible,
  buildUpstreamRequest,
  buildBalanceRequest,
  buildProviderRequest,
  buildRealtimeRequest,
  effectiveBaseUrl,
  type BuiltRequest,
} from './upstream-url.js';
