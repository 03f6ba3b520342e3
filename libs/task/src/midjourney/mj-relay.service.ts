import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ChannelHealthService, type RelayChannel } from '@gw/channel';
import { OptionService } from '@gw/option';
import { expressionRequest } from '@gw/relay';
import { submitQuota } from '../generic/task-settlement.js';
import { TaskBilling } from '../shared/task-billing.service.js';
import { TaskRelayError } from '../shared/task-error.js';
import { TaskGate, type TaskCaller, type TaskPrice } from '../shared/task-gate.js';
import { joinUrl, TaskUpstream, type UpstreamJson } from '../shared/upstream-json.js';
import {
  FREE_ACTIONS,
  forwardBody,
  MjAction,
  mjModelName,
  MjRequestError,
  planSubmit,
  type MjRoute,
  type MjSubmitPlan,
} from './mj-actions.js';
import { MjStatus, type MidjourneyEntity } from './midjourney.entity.js';
import { channelSecret, MjPoller } from './mj-poller.js';
import { MjRepository } from './mj.repository.js';
import { toMjDto } from './mj-view.js';

/** Channel types that speak Midjourney-proxy: 2 Midjourney, 5 Midjourney-plus. */
export const MJ_CHANNEL_TYPES = [2, 5] as const;
const SUBMIT_TIMEOUT_MS = 60_000;

/** One inbound Midjourney call as the controller hands it over. */
export interface MjCall {
  headers: IncomingHttpHeaders;
  ip: string;
  body: unknown;
  /** The inbound path (a `/mj-fast/mj/...` mode prefix is dropped before forwarding). */
  path: string;
}

/** An answer in Midjourney-proxy's shape, with its HTTP status. */
export interface MjAnswer {
  status: number;
  body: unknown;
}

/** The path the proxy expects: `/mj-xxx/mj/submit/...` → `/mj/submit/...` (new-api's rule). */
export function upstreamPath(path: string): string {
  if (!path.includes('/mj-')) return path;
  const at = path.indexOf('/mj/');
  return at < 0 ? path : path.slice(at);
}

/** new-api's error body for Midjourney routes. */
export function mjError(description: string, code = 4, status = 400): MjAnswer {
  return { status, body: { description, type: 'upstream_error', code } };
}

interface ProxyAnswer {
  code: number;
  description: string;
  result: string;
  properties: Record<string, unknown> | undefined;
}

function readProxyAnswer(upstream: UpstreamJson): ProxyAnswer | undefined {
  const body = upstream.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  return {
    code: typeof b.code === 'number' ? b.code : Number(b.code) || 0,
    description: typeof b.description === 'string' ? b.description : '',
    result: typeof b.result === 'string' ? b.result : b.result === undefined || b.result === null ? '' : String(b.result),
    properties: b.properties && typeof b.properties === 'object' ? (b.properties as Record<string, unknown>) : undefined,
  };
}

/**
 * Midjourney-proxy relay: submits are priced per action and charged when the proxy accepts them
 * (codes 1, 21 and 22, which clients see as 1); follow-up actions go to the channel of the task they act
 * on; task reads are answered from our `midjourneys` table, which the poller keeps current.
 */
@Injectable()
export class MjRelayService {
  private readonly logger = new Logger('Midjourney');

  constructor(
    private readonly gate: TaskGate,
    private readonly billing: TaskBilling,
    private readonly rows: MjRepository,
    private readonly options: OptionService,
    private readonly health: ChannelHealthService,
    private readonly poller: MjPoller,
    private readonly upstream: TaskUpstream,
  ) {}

  private forwardFlags() {
    return { enabled: this.options.get('MjForwardUrlEnabled'), serverAddress: this.options.get('ServerAddress') };
  }

  async submit(route: MjRoute, call: MjCall): Promise<MjAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const body = call.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return mjError('bind_request_body_failed');
    const request = body as Record<string, unknown>;
    if (route === 'swap-face' && (!request.sourceBase64 || !request.targetBase64))
      return mjError('sour_base64_and_target_base64_is_required');
    let plan: MjSubmitPlan;
    try {
      plan = planSubmit(route, request);
    } catch (error) {
      if (error instanceof MjRequestError) return mjError(error.message);
      throw error;
    }
    const model = mjModelName(plan.action);
    let channel: RelayChannel;
    // The group the submit is priced, billed and logged in (for `auto`, the auto group that has the channel).
    let group: string;
    let prompt = typeof request.prompt === 'string' ? request.prompt : '';
    if (plan.originId) {
      const origin = await this.rows.findOwn(caller.userId, plan.originId);
      if (!origin) return mjError('task_not_found');
      if (this.options.get('MjActionCheckSuccessEnabled') && origin.status !== MjStatus.Success && route !== 'modal')
        return mjError('task_status_not_success');
      const found = this.gate.channelById(origin.channelId);
      if (!found) return mjError('get_channel_info_failed');
      if (found.status !== 1) return mjError('the channel of this task is disabled');
      channel = found;
      group = this.gate.servingGroup(caller, model);
      prompt = origin.prompt ?? '';
    } else {
      // One attempt: new-api's Midjourney submit has no retry loop, so no other channel or auto group either.
      const route = this.gate.route(caller, model, MJ_CHANNEL_TYPES);
      channel = route.channel;
      group = route.group;
    }
    // Face swap routes as new-api's `swap_face`; its default price is registered as mj_swap_face.
    const facts = { usage: {}, request: expressionRequest(call.body, call.headers) };
    const price = this.gate.price(caller, group, model, model === 'swap_face' ? 'mj_swap_face' : model, facts);
    const quota = FREE_ACTIONS.has(plan.action) ? 0 : submitQuota(price, undefined);
    const charge = await this.billing.reserve(caller, quota);

    let upstream: UpstreamJson;
    try {
      const flags = {
        notify: this.options.get('MjNotifyEnabled'),
        accountFilter: this.options.get('MjAccountFilterEnabled'),
        modeClear: this.options.get('MjModeClearEnabled'),
      };
      upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, upstreamPath(call.path)), {
        body: forwardBody(request, flags),
        headers: { 'mj-api-secret': channelSecret(channel) },
        timeoutMs: SUBMIT_TIMEOUT_MS,
      });
    } catch (error) {
      await charge.release();
      this.logger.warn(`channel #${channel.id}: ${(error as Error).message}`);
      return mjError('do_request_failed', 5, 400);
    }
    const answer = readProxyAnswer(upstream);
    if (!answer) {
      await charge.release();
      return mjError(upstream.text ? 'unmarshal_response_body_failed' : 'empty_response_body', 5, 400);
    }
    const accepted = upstream.status === 200 && (answer.code === 1 || answer.code === 21 || answer.code === 22);
    // Code 3: the proxy has no Midjourney account left; auto-disable rules decide whether the channel goes.
    if (answer.code === 3)
      this.health.reportRelayFailure(channel.id, { message: answer.description || 'No available account instance', channelError: true });
    const now = Date.now();
    const row: Partial<MidjourneyEntity> = {
      userId: caller.userId,
      code: answer.code,
      action: plan.action,
      mjId: answer.result,
      prompt: route === 'swap-face' ? 'InsightFace' : prompt,
      promptEn: '',
      description: answer.description,
      state: '',
      submitTime: now,
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      status: '',
      progress: '0%',
      failReason: '',
      channelId: channel.id,
      quota: accepted ? quota : 0,
      tokenId: caller.tokenId,
      billingChannelId: channel.id,
    };
    if (!accepted) {
      // Refused at submit: nothing to poll, nothing charged.
      Object.assign(row, {
        failReason: answer.description || `upstream status ${upstream.status}`,
        status: MjStatus.Failure,
        progress: '100%',
        finishTime: now,
      });
    }
    if (answer.code === 21 && answer.properties) {
      const status = answer.properties.status;
      const imageUrl = answer.properties.imageUrl;
      if (typeof status === 'string' && typeof imageUrl === 'string') {
        Object.assign(row, { status, imageUrl });
        if (status === MjStatus.Success) Object.assign(row, { progress: '100%', startTime: now, finishTime: now, code: 1 });
      }
    }
    if (accepted && plan.action === MjAction.Upload) Object.assign(row, { status: MjStatus.Success, progress: '100%' });
    if (accepted) {
      // The row and the charge commit together (when they cannot, the reservation goes back).
      const saveRow = (manager: EntityManager) => this.rows.insert(row, manager);
      await this.commit(charge, { caller, group, channel, model, action: plan.action, mjId: answer.result, price, call }, saveRow);
    } else {
      try {
        await this.rows.insert(row);
      } finally {
        await charge.release();
      }
    }
    return { status: upstream.status, body: this.clientBody(upstream, answer, plan.action) };
  }

  private async commit(
    charge: Awaited<ReturnType<TaskBilling['reserve']>>,
    submit: {
      caller: TaskCaller;
      group: string;
      channel: RelayChannel;
      model: string;
      action: string;
      mjId: string;
      price: TaskPrice;
      call: MjCall;
    },
    saveRow: (manager: EntityManager) => Promise<unknown>,
  ): Promise<void> {
    const { caller, group, channel, action, mjId, call } = submit;
    const { modelPrice, groupRatio } = submit.price;
    await charge.commit(
      {
        channelId: channel.id,
        channelName: channel.name,
        modelName: submit.model,
        group,
        ip: caller.recordIp ? call.ip : '',
        content: `fixed price ${modelPrice.toFixed(2)}, group ratio ${groupRatio.toFixed(2)}, action ${action}, ID ${mjId}`,
        other: { model_price: modelPrice, group_ratio: groupRatio, mj_id: mjId, request_path: call.path },
      },
      saveRow,
    );
  }

  /** Codes 21 (exists) and 22 (queued) read as 1 (submitted) for clients, as new-api rewrites them. */
  private clientBody(upstream: UpstreamJson, answer: ProxyAnswer, action: string): unknown {
    const body = { ...(upstream.body as Record<string, unknown>) };
    if (answer.code === 22 || (answer.code === 21 && action !== MjAction.InPaint && action !== MjAction.CustomZoom)) body.code = 1;
    return body;
  }

  async fetch(call: MjCall, mjId: string): Promise<MjAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const row = await this.rows.findOwn(caller.userId, mjId);
    if (!row) return mjError('task_no_found');
    return { status: 200, body: toMjDto(row, this.forwardFlags()) };
  }

  /**
   * `/mj/notify`: a task report pushed by the proxy (the notifyHook of MjNotifyEnabled), as new-api takes
   * it behind token authentication. Only the caller's own unfinished task moves, through the poller's rules.
   */
  async notify(call: MjCall): Promise<MjAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const report = call.body;
    if (!report || typeof report !== 'object' || Array.isArray(report)) return mjError('bind_request_body_failed');
    const mjId = (report as { id?: unknown }).id;
    if (typeof mjId !== 'string' || !mjId.trim()) return mjError('midjourney_task_identity_invalid');
    const row = await this.rows.findOwn(caller.userId, mjId.trim());
    if (!row) return mjError('task_no_found');
    await this.poller.applyNotice(row, report as Record<string, unknown>);
    return { status: 200, body: { code: 1, description: 'success', result: row.mjId } };
  }

  async listByCondition(call: MjCall): Promise<MjAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const ids = (call.body as { ids?: unknown } | undefined)?.ids;
    if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')))
      return mjError('ids must be a list of task ids');
    const rows = await this.rows.findOwnMany(caller.userId, ((ids as string[] | undefined) ?? []).slice(0, 1000));
    const flags = this.forwardFlags();
    return { status: 200, body: rows.map((row) => toMjDto(row, flags)) };
  }

  /** Asks the task's own channel for the image seed. */
  async imageSeed(call: MjCall, mjId: string): Promise<MjAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const row = await this.rows.findOwn(caller.userId, mjId);
    if (!row) return mjError('task_no_found');
    const channel = this.gate.channelById(row.channelId);
    if (!channel) return mjError('get_channel_info_failed');
    if (channel.status !== 1) return mjError('the channel of this task is disabled');
    try {
      const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, upstreamPath(call.path)), {
        method: 'GET',
        headers: { 'mj-api-secret': channelSecret(channel) },
        timeoutMs: 30_000,
      });
      const answer = readProxyAnswer(upstream);
      return answer ? { status: upstream.status, body: upstream.body } : mjError('unmarshal_response_body_failed', 5);
    } catch {
      return mjError('do_request_failed', 5);
    }
  }

  /** For the image forwarder: the stored upstream URL of a task's image. */
  async imageSource(mjId: string): Promise<{ url: string } | undefined> {
    const row = await this.rows.findByMjId(mjId);
    return row?.imageUrl ? { url: row.imageUrl } : undefined;
  }
}

export { TaskRelayError };
