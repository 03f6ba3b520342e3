import type { IncomingHttpHeaders } from 'node:http';
import type { AdaptorCall } from '../../providers/types.js';
import { RelayError } from '../relay-error.js';
import { OverrideConfigError } from './conditions.js';
import { finalHeaders } from './header-ops.js';
import type { Json } from './json-path.js';
import { OverrideReturnError, parseOperations, runOperations } from './operations.js';

/** What an override's conditions may read besides the body (new-api's BuildParamOverrideContext). */
export interface OverrideFacts {
  upstreamModel: string;
  originalModel: string;
  requestPath: string;
  clientHeaders?: IncomingHttpHeaders;
  /** 0 for the first attempt, 1 for the first retry... */
  retryIndex: number;
  /** The previous attempt's error, on a retry. */
  lastError?: RelayError;
  /** More context (channel_affinity: the affinity rule and key of the request). */
  extra?: Record<string, unknown>;
}

/** Where one attempt stands in the request's retries (the override's retry_index and last_error). */
export interface AttemptPlace {
  retryIndex: number;
  lastError?: RelayError;
}

/** What one attempt's override may read besides the body, from the forward loop's input. */
export function overrideFacts(
  input: { request: { model: string; path: string }; clientHeaders?: IncomingHttpHeaders; overrideContext?: Record<string, unknown> },
  upstreamModel: string,
  place: AttemptPlace,
): OverrideFacts {
  return {
    upstreamModel,
    originalModel: input.request.model,
    requestPath: input.request.path,
    clientHeaders: input.clientHeaders,
    retryIndex: place.retryIndex,
    lastError: place.lastError,
    extra: input.overrideContext,
  };
}

export interface OverrideResult {
  body: Record<string, unknown>;
  /** The header override the call sends instead of the channel's, when header operations ran. */
  headerOverride?: Record<string, string>;
}

/** The client's credentials never reach an override's headers (a pass_headers of Authorization would leak the gateway key). */
const PRIVATE_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'proxy-authorization']);

/** Header maps keyed by names from clients and operators: no prototype, so no name is special. */
const headerMap = (): Record<string, string> => Object.create(null) as Record<string, string>;

function requestHeaders(headers: IncomingHttpHeaders | undefined): Record<string, string> {
  const out = headerMap();
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (PRIVATE_HEADERS.has(name) || value === undefined) continue;
    const text = (Array.isArray(value) ? value.join(', ') : value).trim();
    if (text) out[name] = text;
  }
  return out;
}

function lowerKeys(headers: Record<string, string> | null): Record<string, string> {
  const out = headerMap();
  for (const [name, value] of Object.entries(headers ?? {})) if (name.trim()) out[name.trim().toLowerCase()] = String(value);
  return out;
}

function contextOf(
  facts: OverrideFacts,
  headers: { request: Record<string, string>; override: Record<string, string> },
): Record<string, Json> {
  const context: Record<string, unknown> = {
    model: facts.upstreamModel,
    upstream_model: facts.upstreamModel,
    original_model: facts.originalModel,
    request_path: facts.requestPath,
    request_headers: headers.request,
    header_override: headers.override,
    retry_index: facts.retryIndex,
    is_retry: facts.retryIndex > 0,
    retry: { index: facts.retryIndex, is_retry: facts.retryIndex > 0 },
    is_channel_test: false,
    ...facts.extra,
  };
  const last = facts.lastError;
  if (last) {
    const code = last.errorCode ?? '';
    Object.assign(context, {
      last_error: { status_code: last.httpStatus, message: last.message, code, error_code: code, type: last.type, error_type: last.type },
      last_error_status_code: last.httpStatus,
      last_error_message: last.message,
      last_error_code: code,
      last_error_type: last.type,
    });
  }
  return context as Record<string, Json>;
}

/**
 * A channel's param override on one upstream body: the legacy form's keys set over the body's, or new-api's
 * `{"operations": [...]}` run in order on a copy (the request's own body is never changed, as a retry reuses
 * it). Throws OverrideConfigError for an override that cannot run and OverrideReturnError for `return_error`.
 */
export function applyParamOverride(
  body: Record<string, unknown>,
  override: Record<string, unknown> | null,
  channelHeaders: Record<string, string> | null,
  facts: OverrideFacts,
): OverrideResult {
  if (!override) return { body };
  const operations = parseOperations(override);
  if (!operations) return { body: Object.assign(body, override) };
  const headers = { request: requestHeaders(facts.clientHeaders), override: lowerKeys(channelHeaders) };
  const result = runOperations(structuredClone(body) as Json, operations, contextOf(facts, headers), headers);
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    throw new OverrideConfigError('the operations left a body that is not a JSON object');
  return { body: result as Record<string, unknown>, headerOverride: finalHeaders(headers) };
}

/** The attempt's failure for an override that refused the request or could not run. */
export interface OverrideRefusal {
  failure: { error: RelayError; retryable: boolean };
}

/** An attempt's override applied, or its refusal. */
export type OverrideStep = OverrideResult | OverrideRefusal;

/** An adaptor call's override for one attempt: the body to send and the call to build it with (its headers), or the refusal. */
export type CallOverride = (
  body: Record<string, unknown>,
  call: AdaptorCall,
) => { call: AdaptorCall; body: Record<string, unknown> } | OverrideRefusal;

/** applyParamOverride for one attempt of a request: its errors become the attempt's failure (overrideFailure). */
export function overrideForAttempt(
  body: Record<string, unknown>,
  override: Record<string, unknown> | null,
  channelHeaders: Record<string, string> | null,
  facts: OverrideFacts,
  shouldRetryStatus: (status: number) => boolean,
): OverrideStep {
  try {
    return applyParamOverride(body, override, channelHeaders, facts);
  } catch (error) {
    const failure = overrideFailure(error, shouldRetryStatus);
    if (!failure) throw error;
    return { failure };
  }
}

/**
 * The attempt's failure for an override error: `return_error` is the client's answer (retried only when it says
 * skip_retry: false and the status is retryable), a broken override the channel's 500, never retried.
 */
export function overrideFailure(
  error: unknown,
  shouldRetryStatus: (status: number) => boolean,
): { error: RelayError; retryable: boolean } | undefined {
  if (error instanceof OverrideReturnError)
    return {
      error: new RelayError(error.message, error.status, error.code, error.type),
      retryable: !error.skipRetry && shouldRetryStatus(error.status),
    };
  if (error instanceof OverrideConfigError)
    return {
      error: new RelayError(`channel param override failed: ${error.message}`, 500, 'channel:param_override_invalid'),
      retryable: false,
    };
  return undefined;
}
