import type { ExprRequest } from '@gw/contracts';
import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, withRequestId, type AppConfig } from '@gw/core';
import { LogService } from '@gw/log';
import { OptionService } from '@gw/option';
import { affinityAdminInfo, affinityOverrideContext } from '../affinity/affinity-info.js';
import type { AffinityMatch } from '../affinity/affinity-match.js';
import { ChannelAffinity } from '../affinity/channel-affinity.service.js';
import { BillingSession } from '../billing/billing-session.js';
import { QuotaLedger } from '../billing/quota-ledger.js';
import { RelayCharges } from '../billing/relay-charges.js';
import { type OverlapTicket, ReserveOverlap } from '../billing/reserve-overlap.js';
import { requestIdOf } from '../http/request-id.js';
import { sendJson } from '../http/send-json.js';
import { buildConsumeLog } from '../log/consume-log.js';
import { errorRowWriter } from '../log/error-log.js';
import { isFree } from '../pricing/index.js';
import { toolCharges } from '../pricing/tool-prices.js';
import { type ChannelRoute, ChannelSelection } from './channel-selection.js';
import { ClientGone } from './client-gone.js';
import { expressionRequest, modelPrice } from './model-price.js';
import { RelayAuthenticator, RelayPricing, RelayRateLimiter, type PriceInfo, type RelayCall, type RelayCaller } from './ports.js';
import { RelayError, toRelayError } from './relay-error.js';
import { codecOf } from '../providers/registry.js';
import type { FormatId } from '../providers/types.js';
import { promptBodyOf, speechCharacters } from './openai-request.js';
import { formatOfKind, parseRelayRequest, type RelayKind, type RelayRequest } from './relay-request.js';
import { RelayTrace } from './relay-trace.js';
import { UpstreamCall, type ForwardResult } from './upstream-call.js';

/** true once the reserve has committed, false when it was refused or failed (never throws). */
function committed(reserving: Promise<void>): Promise<boolean> {
  return reserving.then(
    () => true,
    () => false,
  );
}

const NO_USAGE = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

/** How long a shutdown waits for requests in flight to settle and log (streams may be cut after that). */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * One relayed request, end to end: authenticate → parse → rate limit → group and price → channel →
 * reserve quota (before the upstream call, or beside it for a clearly rich caller) → forward with retries
 * (the answer is written as it arrives, once the reserve has committed) → settle or refund → counters and
 * the consume log. Errors before any byte was sent become OpenAI error bodies.
 */
@Injectable()
export class RelayPipeline implements OnModuleDestroy {
  private readonly logger = new Logger('Relay');
  private inFlight = 0;
  private onDrained?: () => void;
  /** ERROR_LOG_ENABLED: failed attempts are logged (type 5); off, the relay does no work for them. */
  private readonly errorLogEnabled: boolean;

  constructor(
    private readonly auth: RelayAuthenticator,
    private readonly pricing: RelayPricing,
    private readonly rateLimiter: RelayRateLimiter,
    private readonly selection: ChannelSelection,
    private readonly upstream: UpstreamCall,
    private readonly ledger: QuotaLedger,
    private readonly overlap: ReserveOverlap,
    private readonly options: OptionService,
    private readonly charges: RelayCharges,
    private readonly logs: LogService,
    private readonly affinity: ChannelAffinity,
    @Inject(APP_CONFIG) config?: AppConfig,
  ) {
    this.errorLogEnabled = config?.errorLogEnabled === true;
  }

  /**
   * Destroy hooks run before the log's and counters' shutdown flushes: wait here for requests in flight
   * to settle and record their rows, so a graceful shutdown loses no charge and no log row.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => (this.onDrained = resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** `authenticate` is the playground's session caller; /v1 routes authenticate the token. */
  async handle(kind: RelayKind, call: RelayCall, authenticate?: () => Promise<RelayCaller>): Promise<void> {
    const startedAt = performance.now();
    const { req, res } = call;
    const requestId = requestIdOf(req, res);
    let billing: BillingSession | undefined;
    let ticket: OverlapTicket | undefined;
    const gone = new ClientGone(res);
    const trace = RelayTrace.start(kind, requestId, startedAt, req);
    this.inFlight++;
    try {
      const who = await (authenticate ? authenticate() : this.auth.authenticate(call));
      const request = parseRelayRequest(kind, call.path, call.body, call.route);
      if (!who.playground) await this.rateLimiter.check(who.userId, who.requestedGroup || who.userGroup);
      const group = this.selection.usingGroup(who, request.model);
      const affinity =
        who.pinnedChannelId === undefined
          ? this.affinity.match({ model: request.model, path: call.path, headers: req.headers, body: call.body, usingGroup: group }, who)
          : undefined;
      const preferred = affinity && (await this.affinityRoute(affinity, who, group, request.model));
      // For `auto`, the route's group is the auto group serving the request: it is priced, billed and logged there.
      const route = preferred ?? this.selection.route(who, group, request.model);
      const firstChannelId = route.channel.id;
      const firstGroup = route.group;
      trace?.routed(request.model, route.group, request.stream);
      const facts = expressionRequest(request.body, req.headers, request.imageCount);
      const price = this.price(who, request.model, route.group, facts);
      const pricedGroup = route.group;
      const promptTokens =
        request.kind === 'audio_speech' ? speechCharacters(request) : this.pricing.countPromptTokens(request.model, promptBodyOf(request));
      billing = new BillingSession(this.ledger, who.userId, who.tokenId, requestId);
      const perCall = request.callFactor !== undefined && price.usePrice;
      const estimate = perCall
        ? this.pricing.perCallQuota(price, request.callFactor!)
        : this.pricing.preConsumeQuota(price, promptTokens, request.maxTokens);
      // A priced request reserves at least 1, so a balance of 0 or in debt is refused (docs/billing.md).
      const amount = isFree(price) ? estimate : Math.max(1, estimate);
      ticket = this.overlap.enter(who.userId, who.tokenId, amount, who.balances);
      // Beside the upstream call when the caller is clearly rich (the answer waits for the commit), else first.
      const reserving = ticket.overlap ? this.reserveBeside(billing, who, amount, gone) : undefined;
      if (!reserving) await this.reserve(billing, who, amount);

      trace?.forwarding();
      const forward = await this.upstream.forward({
        request,
        group: route.group,
        first: route.channel,
        route,
        promptTokens,
        startedAt,
        res,
        pinned: who.pinnedChannelId !== undefined,
        countText: (text) => this.pricing.countTextTokens(request.model, text),
        signal: gone,
        dropFields: who.playground ? ['group'] : undefined,
        clientHeaders: req.headers,
        holdAnswer: reserving && (() => committed(reserving)),
        overrideTemplate: affinity?.rule.param_override_template ?? undefined,
        overrideContext: affinity && { channel_affinity: affinityOverrideContext(affinity) },
        onFailure: this.errorLogEnabled
          ? errorRowWriter(this.logs, { caller: who, request, route, requestId, ip: call.ip, startedAt })
          : undefined,
      });
      // A refused reserve is the answer, whatever the upstream did (nothing was written to the client).
      if (reserving) await reserving;
      trace?.forwarded(forward);
      if (!forward.ok) {
        await billing.refund();
        this.fail(res, forward.error ?? new RelayError('upstream request failed', 502, 'do_request_failed'), formatOfKind(kind), requestId);
        return;
      }
      if (!res.writableEnded) res.end();
      if (!who.playground) this.rateLimiter.recordSuccess(who.userId, group);
      if (affinity) this.affinity.record(affinity, firstChannelId, forward.channel.id);
      // A cross-group retry served it in another auto group: settled at that group's ratio (new-api HandleGroupRatio).
      const served = route.group === pricedGroup ? price : this.price(who, request.model, route.group, facts);
      // An expression that cannot price the final usage charges the reservation, whichever group settles it.
      if (served.expr && price.expr && served !== price) served.expr.estimate = price.expr.estimate;
      const charged = await this.settle({
        billing,
        who,
        request,
        group: route.group,
        price: served,
        forward,
        requestId,
        ip: call.ip,
        startedAt,
        adminExtra: affinity && affinityAdminInfo(affinity, preferred ? { group: firstGroup, channelId: firstChannelId } : undefined),
      });
      if (affinity) this.affinity.observe(affinity, forward.usage ?? NO_USAGE, formatOfKind(kind));
      trace?.charged(charged);
    } catch (error) {
      await billing?.refund().catch((e: Error) => this.logger.error(`refund of ${requestId} failed: ${e.message}`));
      this.fail(res, error, formatOfKind(kind), requestId);
    } finally {
      ticket?.leave();
      gone.release();
      trace?.finish(res);
      if (--this.inFlight === 0) this.onDrained?.();
    }
  }

  /**
   * The route to the channel the key is pinned to, if it can still serve the request; a pin it cannot is
   * forgotten, so the next success pins the channel that served it. The rule's skip_retry_on_failure keeps a
   * failing pinned channel from being retried elsewhere (only then: a first request still fails over).
   */
  private async affinityRoute(match: AffinityMatch, who: RelayCaller, group: string, model: string): Promise<ChannelRoute | undefined> {
    const channelId = await this.affinity.pinned(match);
    if (channelId === undefined) return undefined;
    const route = this.selection.preferredRoute(who, group, model, channelId, match.rule.skip_retry_on_failure === true);
    if (!route) this.affinity.forget(match);
    return route;
  }

  /** Token authentication alone (routes that answer without relaying, such as the 501 ones). */
  authenticateOnly(call: Pick<RelayCall, 'req' | 'ip' | 'queryKey'>): Promise<RelayCaller> {
    return this.auth.authenticate(call);
  }

  /**
   * An error in a client format's own shape, for the relay's other front doors; with `requestId` (where
   * new-api appends it) its message ends with the request id.
   */
  renderError(res: ServerResponse, error: unknown, format: FormatId, requestId?: string): void {
    this.fail(res, error, format, requestId);
  }

  /** Price of the model for this group, or new-api's 400 model_price_error (the 37.5 sentinel ratio when unset models are accepted). */
  private price(who: RelayCaller, model: string, group: string, facts: ExprRequest): PriceInfo {
    return modelPrice(this.pricing, this.options, who, model, group, facts);
  }

  private reserve(billing: BillingSession, who: RelayCaller, amount: number): Promise<void> {
    return this.charges.reserve(billing, who, amount);
  }

  /**
   * The reserve started beside the upstream call (docs/billing.md): the answer is held until it commits
   * (ForwardInput.holdAnswer); if it is refused or fails, the upstream call is cancelled at once.
   */
  private reserveBeside(billing: BillingSession, who: RelayCaller, amount: number, gone: ClientGone): Promise<void> {
    const reserving = this.reserve(billing, who, amount);
    reserving.catch(() => gone.cancel());
    return reserving;
  }

  private async settle(s: {
    billing: BillingSession;
    who: RelayCaller;
    request: RelayRequest;
    group: string;
    price: PriceInfo;
    forward: ForwardResult;
    requestId: string;
    ip: string;
    startedAt: number;
    adminExtra?: Record<string, unknown>;
  }): Promise<number> {
    const usage = s.forward.usage ?? NO_USAGE;
    const perCall = s.request.callFactor !== undefined && s.price.usePrice;
    const tools = perCall
      ? []
      : toolCharges(
          usage,
          s.request.model,
          s.request.kind === 'chat',
          this.options.get('tool_price_setting.prices'),
          s.forward.upstreamModel,
        );
    const price = perCall
      ? this.pricing.perCallQuota(s.price, s.request.callFactor!)
      : usage.promptTokens + usage.completionTokens === 0 && !s.price.expr
        ? 0
        : this.pricing.settleQuota(s.price, usage, tools);
    return this.charges.settle(s.billing, s.who, s.forward.channel.id, price, (outcome) =>
      buildConsumeLog({
        caller: s.who,
        request: s.request,
        group: s.group,
        price: s.price,
        forward: s.forward,
        usage,
        tools,
        quota: outcome.charged,
        shortfall: outcome.shortfall,
        requestId: s.requestId,
        ip: s.ip,
        useTimeMs: performance.now() - s.startedAt,
        adminExtra: s.adminExtra,
      }),
    );
  }

  /**
   * The error in the client's own format (OpenAI, Anthropic or Gemini error body), its message ending with
   * the request id when given (new-api appends it to every relay error, whatever the client's format).
   */
  private fail(res: ServerResponse, error: unknown, format: FormatId, requestId: string | undefined): void {
    const relayError = toRelayError(error);
    if (relayError.httpStatus === 503 && !(error instanceof RelayError))
      this.logger.warn(`relay failed, database unavailable: ${(error as Error).message}`);
    else if (relayError.httpStatus >= 500 && !(error instanceof RelayError))
      this.logger.error(`relay failed: ${(error as Error)?.stack ?? String(error)}`);
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const message = withRequestId(relayError.message, requestId);
    const body =
      format === 'openai'
        ? relayError.body(message)
        : codecOf(format).errorBody(message, relayError.type, relayError.httpStatus, relayError.errorCode);
    sendJson(res, relayError.httpStatus, body);
  }
}
