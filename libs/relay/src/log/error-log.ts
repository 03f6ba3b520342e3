import type { RelayChannel } from '@gw/channel';
import { LogType, type NewLog } from '@gw/log';
import type { RelayCaller } from '../pipeline/ports.js';
import type { RelayError } from '../pipeline/relay-error.js';
import type { RelayRequest } from '../pipeline/relay-request.js';
import { relayLogRow } from './relay-log-row.js';

/** One failed upstream attempt, as the forward loop reports it (ForwardInput.onFailure). */
export interface FailedAttempt {
  channel: RelayChannel;
  error: RelayError;
  /** The channels tried so far, this one last. */
  usedChannels: readonly number[];
  /** Which key of a multi-key channel the attempt used. */
  keyIndex?: number;
}

export interface ErrorRecord {
  caller: RelayCaller;
  request: Pick<RelayRequest, 'model' | 'stream' | 'path'>;
  group: string;
  failure: FailedAttempt;
  requestId: string;
  ip: string;
  useTimeMs: number;
}

/**
 * The error row (type 5) of one failed channel attempt, written when ERROR_LOG_ENABLED is on (new-api's
 * processChannelError → RecordErrorLog): content `status_code=N, message` (the message the client is given,
 * the channel's keys already removed), quota and tokens 0, `other` with the error's type, code and status,
 * the channel, the request path and admin_info. A user's own view drops admin_info and the channel keys.
 */
export function buildErrorLog(record: ErrorRecord): NewLog {
  const { request, failure } = record;
  const { channel, error } = failure;
  const adminInfo: Record<string, unknown> = { use_channel: failure.usedChannels.map(String) };
  if (channel.info?.is_multi_key) {
    adminInfo.is_multi_key = true;
    adminInfo.multi_key_index = failure.keyIndex ?? 0;
  }
  return {
    ...relayLogRow({ ...record, channel }),
    type: LogType.Error,
    content: error.message ? `status_code=${error.httpStatus}, ${error.message}` : `status_code=${error.httpStatus}`,
    quota: 0,
    promptTokens: 0,
    completionTokens: 0,
    other: {
      request_path: request.path,
      error_type: error.type,
      error_code: error.errorCode ?? '',
      status_code: error.httpStatus,
      channel_id: channel.id,
      channel_name: channel.name,
      channel_type: channel.type,
      admin_info: adminInfo,
    },
  };
}

/** What an error row's writer needs of one request: the caller, the request, its route (read when an attempt fails). */
export interface ErrorRowContext {
  caller: RelayCaller;
  request: Pick<RelayRequest, 'model' | 'stream' | 'path'>;
  /** The route's current group: an `auto` retry may have moved it by the time an attempt fails. */
  route: { readonly group: string };
  requestId: string;
  ip: string;
  /** performance.now() at the request's start. */
  startedAt: number;
}

/** The forward loop's onFailure (ERROR_LOG_ENABLED) for one request: each failed attempt becomes an error row. */
export function errorRowWriter(logs: { record(row: NewLog): void }, context: ErrorRowContext): (failure: FailedAttempt) => void {
  return (failure) =>
    logs.record(
      buildErrorLog({
        caller: context.caller,
        request: context.request,
        group: context.route.group,
        failure,
        requestId: context.requestId,
        ip: context.ip,
        useTimeMs: performance.now() - context.startedAt,
      }),
    );
}
