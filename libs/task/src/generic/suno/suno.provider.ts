import { Injectable } from '@nestjs/common';
import type { RelayChannel } from '@gw/channel';
import { TaskRelayError } from '../../shared/task-error.js';
import { TaskUpstream, joinUrl } from '../../shared/upstream-json.js';
import type { PlannedSubmit, SubmitOutcome, TaskProvider, TaskReport } from '../task-provider.js';
import type { TaskEntity } from '../task.entity.js';

/** Channel type 36: a Suno API server (new-api's SunoAPI). */
export const SUNO_CHANNEL_TYPE = 36;
export const SUNO_ACTIONS = ['MUSIC', 'LYRICS'] as const;

interface SunoEnvelope {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

function bearer(channel: RelayChannel): Record<string, string> {
  return { authorization: `Bearer ${channel.upstream.key.trim()}` };
}

/** Suno: `/suno/submit/{music,lyrics}` answered `{code:"success", data:"<task id>"}`, polled with `/suno/fetch`. */
@Injectable()
export class SunoProvider implements TaskProvider {
  readonly platform = 'suno';
  readonly polls = ['suno'];
  readonly channelTypes = [SUNO_CHANNEL_TYPE];
  readonly publicIds = false;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return 'suno';
  }

  plan(action: string, body: unknown): PlannedSubmit {
    const upper = action.toUpperCase();
    if (!(SUNO_ACTIONS as readonly string[]).includes(upper)) throw new TaskRelayError('invalid_action', 400, 'invalid_request');
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new TaskRelayError('the request body must be a JSON object', 400, 'invalid_request');
    const request = { ...(body as Record<string, unknown>) };
    if (upper === 'MUSIC' && !request.mv) request.mv = 'chirp-v3-0';
    if (upper === 'LYRICS' && (typeof request.prompt !== 'string' || !request.prompt.trim()))
      throw new TaskRelayError('prompt_empty', 400, 'invalid_request');
    if (request.continue_clip_id && !request.task_id) throw new TaskRelayError('task id is empty', 400, 'invalid_request');
    return { model: `suno_${upper.toLowerCase()}`, action: upper, body: request };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit): Promise<SubmitOutcome> {
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, `/suno/submit/${planned.action.toLowerCase()}`), {
      body: planned.body,
      headers: bearer(channel),
    });
    const envelope = (upstream.body ?? {}) as SunoEnvelope;
    if (upstream.status !== 200 || envelope.code !== 'success' || typeof envelope.data !== 'string' || !envelope.data) {
      const message = typeof envelope.message === 'string' && envelope.message ? envelope.message : `upstream answered ${upstream.status}`;
      return {
        ok: false,
        status: upstream.status >= 400 ? upstream.status : 500,
        code: typeof envelope.code === 'string' ? envelope.code : 'fail_to_fetch_task',
        message,
      };
    }
    return { ok: true, upstreamId: envelope.data, status: 200, body: { code: 'success', message: '', data: envelope.data } };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const ids = rows.map((row) => row.taskId).filter((id): id is string => Boolean(id));
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, '/suno/fetch'), {
      body: { ids, action: '' },
      headers: bearer(channel),
      timeoutMs: 15_000,
    });
    const envelope = (upstream.body ?? {}) as SunoEnvelope;
    if (upstream.status !== 200 || envelope.code !== 'success' || !Array.isArray(envelope.data))
      throw new Error(`suno fetch answered ${upstream.status}`);
    return (envelope.data as Record<string, unknown>[])
      .filter((item) => item && typeof item.task_id === 'string')
      .map((item) => ({
        upstreamId: item.task_id as string,
        status: typeof item.status === 'string' ? item.status : '',
        progress: typeof item.progress === 'string' ? item.progress : '',
        failReason: typeof item.fail_reason === 'string' ? item.fail_reason : '',
        startTime: Number(item.start_time) || 0,
        finishTime: Number(item.finish_time) || 0,
        data: item.data,
      }));
  }
}
