import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Agent, type Dispatcher } from 'undici';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { UpstreamExchange } from './upstream-exchange.js';
import { buildBalanceRequest, buildUpstreamRequest, type BuiltRequest } from './upstream-url.js';
import { UpstreamError, type UpstreamEndpoint, type UpstreamRequestInit, type UpstreamResponse, type UpstreamTarget } from './upstream.types.js';

/** First-byte timeout when RELAY_TIMEOUT is 0 (new-api waits forever; we do not). */
export const DEFAULT_HEADERS_TIMEOUT_SECONDS = 300;

/**
 * The one HTTP client for provider calls (relay, channel tests, balances, model lists). One keep-alive
 * pool per origin, bounded connect / first-byte / idle timeouts, redirects never followed (a 3xx is an
 * error, so the key never travels to another host), and capped json()/text() reads.
 */
@Injectable()
export class UpstreamClient implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly azureDefaultApiVersion: string;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'relay'>) {
    const relay = config.relay;
    this.headersTimeoutMs = (relay.timeoutSeconds || DEFAULT_HEADERS_TIMEOUT_SECONDS) * 1000;
    this.bodyTimeoutMs = relay.streamingTimeoutSeconds * 1000;
    this.maxResponseBytes = relay.maxResponseBytes;
    this.azureDefaultApiVersion = relay.azureDefaultApiVersion;
    this.agent = new Agent({
      connect: { timeout: relay.connectTimeoutSeconds * 1000 },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: 256,
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  async send(target: UpstreamTarget, endpoint: UpstreamEndpoint, init: UpstreamRequestInit = {}): Promise<UpstreamResponse> {
    return this.dispatch(buildUpstreamRequest(target, endpoint, init, this.azureDefaultApiVersion), init);
  }

  /** The provider's balance query (see buildBalanceRequest); same transport rules as send(). */
  async sendBalance(target: UpstreamTarget, init: Pick<UpstreamRequestInit, 'signal' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'maxResponseBytes'> = {}): Promise<UpstreamResponse> {
    return this.dispatch(buildBalanceRequest(target), init);
  }

  private dispatch(built: BuiltRequest, init: UpstreamRequestInit): Promise<UpstreamResponse> {
    if (init.signal?.aborted) return Promise.reject(new UpstreamError('aborted', 'the request was aborted'));
    const url = new URL(built.url);
    const exchange = new UpstreamExchange(built.url, init.maxResponseBytes ?? this.maxResponseBytes, init.signal);
    this.agent.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: built.method,
        headers: built.headers,
        body: built.method === 'POST' && init.body !== undefined ? JSON.stringify(init.body) : undefined,
        headersTimeout: init.headersTimeoutMs ?? this.headersTimeoutMs,
        bodyTimeout: init.bodyTimeoutMs ?? this.bodyTimeoutMs,
      },
      exchange as unknown as Dispatcher.DispatchHandler,
    );
    return exchange.response;
  }
}

export { toUpstreamError } from './upstream-errors.js';
