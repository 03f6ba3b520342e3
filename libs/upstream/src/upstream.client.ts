import diagnostics from 'node:diagnostics_channel';
import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { APP_CONFIG, type AppConfig, requireOnFirstUse } from '@gw/core';
import { OptionService } from '@gw/option';
import { Http1Dispatcher } from './http1/dispatcher.js';
import { addressRefused, publicOnlyLookup, refusedLiteral } from './public-only.js';
import { UpstreamExchange } from './upstream-exchange.js';
import { openUpstreamSocket, type SocketOpening } from './upstream-socket.js';
import { buildBalanceRequest, buildRealtimeRequest, buildUpstreamRequest, type BuiltRequest } from './upstream-url.js';
import {
  type CancelSignal,
  UpstreamError,
  type UpstreamEndpoint,
  type UpstreamRequestInit,
  type UpstreamResponse,
  type UpstreamTarget,
} from './upstream.types.js';

/** Loaded only for a connection limit (MAX_CONNECTIONS_PER_ORIGIN): the lean HTTP/1.1 client carries every other call. */
const undici = requireOnFirstUse<typeof import('undici')>('undici');

/**
 * Each upstream call as it is dispatched, then as its response head arrives (`{ request }`, the same object
 * both times), whichever client carries it: undici publishes its own channels, the lean HTTP/1.1 client none.
 * scripts/bench/request-stages.mjs times a request's stages with them; without a subscriber they cost a check.
 */
export const UPSTREAM_CALL_CHANNEL = diagnostics.channel('gw:upstream:call');
export const UPSTREAM_HEADERS_CHANNEL = diagnostics.channel('gw:upstream:headers');

/** Bounds the prepared calls kept per channel (one per model and stream mode in practice). */
const PREPARED_PER_CHANNEL = 64;

/** A built request with its URL split the way undici's dispatcher takes it. */
interface PreparedRequest extends BuiltRequest {
  origin: string;
  path: string;
}

function prepared(built: BuiltRequest): PreparedRequest {
  const url = new URL(built.url);
  return { ...built, origin: url.origin, path: url.pathname + url.search };
}

/** First-byte timeout when RELAY_TIMEOUT is 0 (new-api waits forever; we do not). */
export const DEFAULT_HEADERS_TIMEOUT_SECONDS = 300;

/**
 * The one HTTP client for provider calls (relay, channel tests, balances, model lists). One keep-alive
 * pool per origin, bounded connect / first-byte / idle timeouts, redirects never followed (a 3xx is an
 * error, so the key never travels to another host), and capped json()/text() reads.
 */
@Injectable()
export class UpstreamClient implements OnModuleDestroy {
  /** undici's pool, made (and undici loaded) by the first call under a connection limit. */
  private agent?: Agent;
  /** The same for public-only calls (see public-only.ts): its connections are opened with the checking lookup. */
  private publicAgent?: Agent;
  /** The checking pool lent to calls made with other clients (publicOnlyDispatcher): no connection limit of the relay's. */
  private lentAgent?: Agent;
  private readonly connectTimeoutMs: number;
  /** Every call without a connection limit: a leaner path per call and per streamed chunk than undici's (see Http1Dispatcher). */
  private readonly http1: Http1Dispatcher;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly azureDefaultApiVersion: string;
  /** MAX_CONNECTIONS_PER_ORIGIN (0: no limit); a limit queues calls, which only undici's pool does. */
  private readonly maxConnections: number;
  private readonly prepared = new WeakMap<UpstreamTarget, Map<string, PreparedRequest>>();

  constructor(
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'relay'>,
    /** AllowPrivateOutboundUrls lifts the public-only rule; without the options (unit tests) the rule holds. */
    @Optional() private readonly options?: OptionService,
  ) {
    const relay = config.relay;
    this.headersTimeoutMs = (relay.timeoutSeconds || DEFAULT_HEADERS_TIMEOUT_SECONDS) * 1000;
    this.bodyTimeoutMs = relay.streamingTimeoutSeconds * 1000;
    this.maxResponseBytes = relay.maxResponseBytes;
    this.azureDefaultApiVersion = relay.azureDefaultApiVersion;
    this.maxConnections = relay.maxConnectionsPerOrigin;
    this.connectTimeoutMs = relay.connectTimeoutSeconds * 1000;
    this.http1 = new Http1Dispatcher({ connectTimeoutMs: this.connectTimeoutMs, keepAliveMs: 30_000 });
  }

  async onModuleDestroy(): Promise<void> {
    this.http1.close();
    await this.agent?.close().catch(() => undefined);
    await this.publicAgent?.close().catch(() => undefined);
    await this.lentAgent?.close().catch(() => undefined);
  }

  /**
   * Whether a call to this channel may connect only to public addresses (see public-only.ts): its base URL was
   * checked public when saved (`publicOnly`), and AllowPrivateOutboundUrls is off.
   */
  holdsPublic(rule: { publicOnly?: boolean }): boolean {
    return rule.publicOnly === true && this.options?.get('AllowPrivateOutboundUrls') !== true;
  }

  /**
   * For a call to a channel that another client makes (a task provider's fetch, Spark's WebSocket): when the
   * rule holds (holdsPublic), undici's pool whose connections are opened with the checking lookup, its own so
   * they are never shared with unchecked ones; else undefined, and the caller keeps its usual connections.
   * The pool is made (and undici loaded) by the first such call.
   */
  publicOnlyDispatcher(rule: { publicOnly?: boolean }): Dispatcher | undefined {
    if (!this.holdsPublic(rule)) return undefined;
    this.lentAgent ??= new (undici().Agent)({
      connect: publicOnlyConnector(this.connectTimeoutMs),
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
    });
    return this.lentAgent;
  }

  /**
   * Opens the Realtime WebSocket of a channel (buildRealtimeRequest) under the rules of every call: connect and
   * handshake within RELAY_CONNECT_TIMEOUT, no redirect followed, and the public-only rule when it holds.
   */
  openRealtime(
    target: UpstreamTarget,
    model: string,
    options: { beta: boolean; maxPayload: number; signal?: CancelSignal },
  ): Promise<SocketOpening> {
    let built: BuiltRequest;
    try {
      built = buildRealtimeRequest(target, model, { beta: options.beta, azureDefaultVersion: this.azureDefaultApiVersion });
    } catch (error) {
      return Promise.reject(error);
    }
    return openUpstreamSocket(built, {
      maxPayload: options.maxPayload,
      handshakeTimeoutMs: this.connectTimeoutMs,
      publicOnly: this.holdsPublic(built),
      signal: options.signal,
    });
  }

  async send(target: UpstreamTarget, endpoint: UpstreamEndpoint, init: UpstreamRequestInit = {}): Promise<UpstreamResponse> {
    return this.dispatch(this.prepare(target, endpoint, init), init);
  }

  /**
   * The URL and headers of a call. A relay call's depend only on the channel, the endpoint, the model and
   * stream mode, so they are kept per channel object (a channel edit builds a new one) instead of parsing
   * and validating URLs on every request. Calls without an explicit model (it would come from the body),
   * or with a query, extra headers or a method, are built afresh.
   */
  private prepare(target: UpstreamTarget, endpoint: UpstreamEndpoint, init: UpstreamRequestInit): PreparedRequest {
    if (init.model === undefined || init.query || init.extraHeaders || init.method) {
      return prepared(buildUpstreamRequest(target, endpoint, init, this.azureDefaultApiVersion));
    }
    let perTarget = this.prepared.get(target);
    if (!perTarget) {
      perTarget = new Map();
      this.prepared.set(target, perTarget);
    }
    const key = `${endpoint}\n${init.stream ? 1 : 0}\n${init.model}`;
    let found = perTarget.get(key);
    if (!found) {
      found = prepared(buildUpstreamRequest(target, endpoint, init, this.azureDefaultApiVersion));
      if (perTarget.size >= PREPARED_PER_CHANNEL) perTarget.clear();
      perTarget.set(key, found);
    }
    return found;
  }

  /** A request an adaptor built (buildProviderRequest, buildUpstreamRequest); same transport rules as send(). */
  sendBuilt(built: BuiltRequest, init: UpstreamRequestInit = {}): Promise<UpstreamResponse> {
    return this.dispatch(prepared(built), init);
  }

  /** The provider's balance query (see buildBalanceRequest); same transport rules as send(). */
  async sendBalance(
    target: UpstreamTarget,
    init: Pick<UpstreamRequestInit, 'signal' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'maxResponseBytes'> = {},
  ): Promise<UpstreamResponse> {
    return this.dispatch(prepared(buildBalanceRequest(target)), init);
  }

  private dispatch(built: PreparedRequest, init: UpstreamRequestInit): Promise<UpstreamResponse> {
    if (init.signal?.aborted) return Promise.reject(new UpstreamError('aborted', 'the request was aborted'));
    // Every call takes the lean HTTP/1.1 client unless a connection limit asks for undici's queueing pool.
    const ownClient = !this.maxConnections;
    const bodyTimeout = init.bodyTimeoutMs ?? this.bodyTimeoutMs;
    // undici re-arms its body timeout on any byte: the exchange times a line-wise stream's lines on top of it (threats F4).
    const lineTimeout = ownClient ? 0 : bodyTimeout;
    const exchange = new UpstreamExchange(built.url, init.maxResponseBytes ?? this.maxResponseBytes, init.signal, ownClient, lineTimeout);
    // A channel whose base URL was checked public when saved stays public when connected to (DNS rebinding, threats S5).
    const publicOnly = this.holdsPublic(built);
    const request = {
      origin: built.origin,
      path: built.path,
      method: built.method,
      // A raw body brings its own content type; the prepared headers are shared, so they are copied, not changed.
      headers: init.rawBody ? { ...built.headers, 'content-type': init.rawBody.contentType } : built.headers,
      body:
        built.method === 'GET'
          ? undefined
          : init.rawBody
            ? init.rawBody.bytes
            : init.body !== undefined
              ? JSON.stringify(init.body)
              : undefined,
      headersTimeout: init.headersTimeoutMs ?? this.headersTimeoutMs,
      bodyTimeout,
      publicOnly,
    };
    if (UPSTREAM_CALL_CHANNEL.hasSubscribers) {
      UPSTREAM_CALL_CHANNEL.publish({ request });
      exchange.response.then(
        () => UPSTREAM_HEADERS_CHANNEL.publish({ request }),
        () => undefined,
      );
    }
    if (ownClient) this.http1.dispatch(request, exchange);
    else this.limitedPool(publicOnly).dispatch(request, exchange as unknown as Dispatcher.DispatchHandler);
    return exchange.response;
  }

  /** undici's pool of one kind: public-only calls have their own, so neither reuses the other's connections. */
  private limitedPool(publicOnly: boolean): Agent {
    if (publicOnly) {
      this.publicAgent ??= this.newAgent(publicOnlyConnector(this.connectTimeoutMs));
      return this.publicAgent;
    }
    this.agent ??= this.newAgent({ timeout: this.connectTimeoutMs });
    return this.agent;
  }

  private newAgent(connect: Agent.Options['connect']): Agent {
    return new (undici().Agent)({
      connect,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: this.maxConnections,
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
    });
  }
}

/** undici's connector with the checking lookup, and a literal address (never looked up) checked before connecting. */
function publicOnlyConnector(timeout: number): buildConnector.connector {
  const connect = undici().buildConnector({ timeout, lookup: publicOnlyLookup } as buildConnector.BuildOptions);
  return (options, callback) => {
    if (refusedLiteral(options.hostname)) callback(addressRefused(), null);
    else connect(options, callback);
  };
}

export { toUpstreamError } from './upstream-errors.js';
