import type { FormatCodec } from '../types.js';
import { anthropicToHub, hubToAnthropic } from './request.js';
import { anthropicResponseToHub, hubToAnthropicResponse } from './response.js';
import { AnthropicStreamDecoder, AnthropicStreamEncoder } from './stream.js';

export { anthropicAdaptor, ANTHROPIC_VERSION } from './adaptor.js';
export { anthropicUsage } from './response.js';

/** HTTP status → Anthropic's error type (its errors reference). */
function anthropicErrorType(status: number, type: string): string {
  if (status === 400 || status === 413) return status === 413 ? 'request_too_large' : 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return type && type !== 'new_api_error' && type !== 'upstream_error' ? type : 'api_error';
}

export const anthropicCodec: FormatCodec = {
  id: 'anthropic',
  requestToHub: anthropicToHub,
  responseFromHub: hubToAnthropicResponse,
  streamEncoder: (context) => new AnthropicStreamEncoder(context),
  errorBody: (message, type, status) => ({ type: 'error', error: { type: anthropicErrorType(status, type), message } }),
  requestFromHub: hubToAnthropic,
  responseToHub: anthropicResponseToHub,
  streamDecoder: (model) => new AnthropicStreamDecoder(model),
  isErrorBody: (native) => native.type === 'error' || (native.error !== undefined && native.content === undefined),
};
