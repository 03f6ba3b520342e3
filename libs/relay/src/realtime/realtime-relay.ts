import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { WebSocket, WebSocketServer } from 'ws';
import { channelRedactor, type RelayChannel, redactChannelText } from '@gw/channel';
import { APP_CONFIG, type AppConfig, REQUEST_ID_HEADER, requireOnFirstUse } from '@gw/core';
import { LogService } from '@gw/log';
import { OptionService } from '@gw/option';
import { QuotaLedger } from '../billing/quota-ledger.js';
import { RelayCharges } from '../billing/relay-charges.js';
import { newRequestId } from '../http/request-id.js';
import { errorRowWriter } from '../log/error-log.js';
import { ChannelSelection } from '../pipeline/channel-selection.js';
import { expressionRequest, modelPrice } from '../pipeline/model-price.js';
import { type PriceInfo, RelayAuthenticator, RelayPricing, RelayRateLimiter } from '../pipeline/ports.js';
import { badRequest, RelayError, toRelayError } from '../pipeline/relay-error.js';
import { checkModel } from '../pipeline/model-name.js';
import { RealtimeBridge } from './realtime-bridge.js';
import { REALTIME_MAX_FRAME_BYTES, RealtimeConnector, type RealtimeUpstream } from './realtime-connector.js';
import { NOT_A_HANDSHAKE, REALTIME_PROTOCOL, readHandshake, refuseUpgrade, SocketGone } from './realtime-handshake.js';
import { REALTIME_PATH, RealtimeMeter } from './realtime-meter.js';

/** The WebSocket package, loaded by the first Realtime session (most gateways never serve one). */
const ws = requireOnFirstUse<typeof import('ws')>('ws');

/** How long a shutdown waits for ended sessions to settle and log. */
const DRAIN_TIMEOUT_MS = 10_000;

/** What the HTTP front door read of an upgrade request. */
export interface RealtimeCall {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  /** The client's address (behind TRUSTED_PROXIES, from X-Forwarded-For). */
  ip: string;
  /** The URL's `?model=`. */
  model: string | undefined;
  /** The URL's `?key=` (one of new-api's key carriers), read as the HTTP relay reads it. */
  queryKey: string | undefined;
}

/** The provider's text frames as the client may see them: any piece of the channel's keys masked. */
function redactorFor(channel: RelayChannel): (frame: Buffer) => Buffer | string {
  const redactor = channelRedactor(channel);
  return (frame) => (redactor?.mayHold(frame) ? redactChannelText(frame.toString('utf8'), channel) : frame);
}

/**
 * OpenAI's Realtime API over WebSocket (`GET /v1/realtime?model=`), as new-api relays it. Everything that can
 * be refused is decided before the upgrade, answered as plain HTTP with the relay's error body: the token (from
 * Authorization, or the `openai-insecure-api-key.` subprotocol), the model, the token's model limits and group,
 * the price, the first reservation, and the provider's own upgrade (tried on the route's channels as a request
 * is). Then the client is switched, answered with the `realtime` subprotocol when it offered it, and the two
 * sockets are bridged; each `response.done` is billed (RealtimeMeter), a response the session ends in is billed
 * at what the gateway counted of it, and what is still reserved with nothing counted is given back.
 */
@Injectable()
export class RealtimeRelay implements OnModuleDestroy {
  private readonly logger = new Logger('Realtime');
  private readonly sessions = new Set<RealtimeBridge>();
  private readonly ending = new Set<Promise<void>>();
  private readonly requestIds = new WeakMap<IncomingMessage, string>();
  private server?: WebSocketServer;
  private readonly idleMs: number;
  private readonly errorLogEnabled: boolean;
  private draining = false;

  constructor(
    private readonly auth: RelayAuthenticator,
    private readonly rateLimiter: RelayRateLimiter,
    private readonly selection: ChannelSelection,
    private readonly pricing: RelayPricing,
    private readonly options: OptionService,
    private readonly ledger: QuotaLedger,
    private readonly charges: RelayCharges,
    private readonly connector: RealtimeConnector,
    private readonly logs: LogService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.idleMs = config.relay.realtimeIdleSeconds * 1000;
    this.errorLogEnabled = config.errorLogEnabled === true;
  }

  /** Ends every session (1001), then waits for their billing, before the log's shutdown flush. */
  async onModuleDestroy(): Promise<void> {
    this.draining = true;
    for (const session of this.sessions) session.end(1001, 'server shutting down');
    if (this.ending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.ending), new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }

  /** One upgrade request for the Realtime route; never throws (a failure is the client's HTTP error). */
  async open(call: RealtimeCall): Promise<void> {
    const { req, socket } = call;
    const requestId = newRequestId();
    // A connection reset while the handshake is worked on must not become an unhandled error.
    socket.on('error', () => undefined);
    const gone = new SocketGone(socket);
    let meter: RealtimeMeter | undefined;
    let upstream: RealtimeUpstream | undefined;
    try {
      if (this.draining) throw new RelayError('the server is shutting down', 503, 'server_shutting_down');
      const handshake = readHandshake(req.method, req.headers);
      if (!handshake) throw badRequest(NOT_A_HANDSHAKE);
      const authorization = handshake.protocolKey === undefined ? undefined : `Bearer ${handshake.protocolKey}`;
      const who = await this.auth.authenticate({ req, ip: call.ip, queryKey: call.queryKey, authorization });
      // The client's model (`?model=`), checked as the HTTP relay checks a body's.
      const model = checkModel(call.model);
      await this.rateLimiter.check(who.userId, who.requestedGroup || who.userGroup);
      const group = this.selection.usingGroup(who, model);
      const route = this.selection.route(who, group, model);
      // A billing expression reads the handshake's headers (a WebSocket has no request body).
      const facts = expressionRequest({}, req.headers);
      const price = realtimePrice(modelPrice(this.pricing, this.options, who, model, route.group, facts));
      const session = { who, model, group: route.group, price, ratios: this.pricing.audioRatios(model), requestId, ip: call.ip };
      meter = new RealtimeMeter({ ledger: this.ledger, charges: this.charges, pricing: this.pricing }, session);
      await meter.open();
      if (gone.aborted) throw new RelayError('the client went away', 499, 'client_gone');
      const startedAt = performance.now();
      // ERROR_LOG_ENABLED: each failed provider connect is an error row, as each failed attempt of an HTTP call.
      const onFailure = this.errorLogEnabled
        ? errorRowWriter(this.logs, {
            caller: who,
            request: { model, stream: true, path: REALTIME_PATH },
            route,
            requestId,
            ip: call.ip,
            startedAt,
          })
        : undefined;
      upstream = await this.connector.connect(route, model, handshake.beta, gone, onFailure);
      // An `auto` retry may have moved the session to another group: billed at that group's ratio.
      const served =
        route.group === session.group ? price : realtimePrice(modelPrice(this.pricing, this.options, who, model, route.group, facts));
      meter.servedBy({ ...upstream, group: route.group, price: served });
      if (gone.aborted) throw new RelayError('the client went away', 499, 'client_gone');
      this.rateLimiter.recordSuccess(who.userId, group);
    } catch (error) {
      gone.release();
      upstream?.socket.terminate();
      await meter?.finish().catch((e: Error) => this.logger.error(`refund of ${requestId} failed: ${e.message}`));
      this.refuse(socket, error, requestId, gone.aborted);
      return;
    }
    gone.release();
    this.upgrade(call, requestId, upstream, meter);
  }

  private refuse(socket: Duplex, error: unknown, requestId: string, clientGone: boolean): void {
    if (clientGone) {
      socket.destroy();
      return;
    }
    const relayError = toRelayError(error);
    if (relayError.httpStatus === 503 && !(error instanceof RelayError))
      this.logger.warn(`realtime refused, database unavailable: ${(error as Error).message}`);
    else if (relayError.httpStatus >= 500 && !(error instanceof RelayError))
      this.logger.error(`realtime failed: ${(error as Error)?.stack ?? String(error)}`);
    refuseUpgrade(socket, relayError, requestId);
  }

  /** Switches the client's connection to WebSocket and bridges it to the provider's socket. */
  private upgrade(call: RealtimeCall, requestId: string, upstream: RealtimeUpstream, meter: RealtimeMeter): void {
    let switched = false;
    // The switch can still fail (the client left in between): nothing is bridged, the provider is let go.
    call.socket.once('close', () => {
      if (switched) return;
      upstream.socket.terminate();
      void meter.finish().catch((e: Error) => this.logger.error(`refund of ${requestId} failed: ${e.message}`));
    });
    this.requestIds.set(call.req, requestId);
    this.webSocketServer().handleUpgrade(call.req, call.socket, call.head, (client: WebSocket) => {
      switched = true;
      this.bridge(client, upstream, meter, requestId);
    });
  }

  private bridge(client: WebSocket, upstream: RealtimeUpstream, meter: RealtimeMeter, requestId: string): void {
    const session = new RealtimeBridge(client, upstream.socket, meter, {
      requestId,
      idleMs: this.idleMs,
      redact: redactorFor(upstream.channel),
    });
    this.sessions.add(session);
    const ended: Promise<void> = session.done
      .then(() => meter.finish())
      .catch((e: Error) => this.logger.error(`billing of realtime session ${requestId} failed: ${e.message}`))
      .finally(() => {
        this.sessions.delete(session);
        this.ending.delete(ended);
      });
    this.ending.add(ended);
  }

  /** The WebSocket server, made on the first session (no server of its own: upgrades come from the HTTP server). */
  private webSocketServer(): WebSocketServer {
    if (this.server) return this.server;
    const server = new (ws().WebSocketServer)({
      noServer: true,
      clientTracking: false,
      maxPayload: REALTIME_MAX_FRAME_BYTES,
      perMessageDeflate: false,
      handleProtocols: (offered: Set<string>) => (offered.has(REALTIME_PROTOCOL) ? REALTIME_PROTOCOL : false),
    });
    server.on('headers', (headers: string[], req: IncomingMessage) => {
      const id = this.requestIds.get(req);
      if (id) headers.push(`${REQUEST_ID_HEADER}: ${id}`);
    });
    this.server = server;
    return server;
  }
}

/** new-api refuses a Realtime session whose model's expression prices per request: responses are billed by tokens. */
function realtimePrice(price: PriceInfo): PriceInfo {
  if (price.expr?.program.calls.has('fixed'))
    throw new RelayError(
      'a Realtime session is billed by tokens; the billing expression of this model uses fixed()',
      400,
      'model_price_error',
    );
  return price;
}
