import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import express from 'express';
import proxyAddr from 'proxy-addr';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  APP_CONFIG,
  describeBodyError,
  isAnthropicPath,
  isRelayPath,
  openAiError,
  serverFaultOf,
  SystemStatusService,
  verifyJsonDepth,
  withRequestId,
  type AppConfig,
} from '@gw/core';
import { badRequest, RelayError } from '../pipeline/relay-error.js';
import { RelayPipeline } from '../pipeline/relay-pipeline.js';
import { formatOfKind, type RelayKind, type RouteFacts } from '../pipeline/relay-request.js';
import type { RelayCaller } from '../pipeline/ports.js';
import { OptionService } from '@gw/option';
import { applyRelayCors } from './cors.js';
import { exemptFromOverload, type Overload, overloadOf } from './overload.js';
import { readJsonBody, type BodyParser } from './json-body.js';
import { MULTIPART_KINDS } from '../pipeline/openai-request.js';
import { MultipartError, readMultipart } from './multipart-body.js';
import { NOT_A_HANDSHAKE, refuseUpgrade, writeHttp } from '../realtime/realtime-handshake.js';
import { RealtimeRelay } from '../realtime/realtime-relay.js';
import { matchRelayRoute } from './relay-routes.js';
import { newRequestId, requestIdOf } from './request-id.js';
import { sendJson } from './send-json.js';

/** Reads and drops the rest of a request body; resolves when it has ended or the connection is gone. */
function discardBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve).once('close', resolve).once('error', resolve).resume();
  });
}

const BODY_UNREADABLE = 'request body could not be read';

/** `/v1/realtime`, matched as Express would (any letter case, one trailing slash). */
function isRealtimePath(path: string): boolean {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.toLowerCase() === '/v1/realtime';
}

/** `?key=` is one of new-api's key carriers; a repeated key is no key (as with Express's query parser). */
function queryKey(query: string): string | undefined {
  if (!query.includes('key=')) return undefined;
  const keys = new URLSearchParams(query).getAll('key');
  return keys.length === 1 ? keys[0] : undefined;
}

/**
 * The hot path's front door, in front of Express. The relay POST routes are served straight off the
 * Node HTTP server: Express's router walk, its req/res decoration and Nest's pipeline cost more than
 * authentication, billing and logging together (measured with `npm run bench`), and none of them does
 * anything for these routes (no console role, no envelope; the pipeline renders its own errors). Every
 * other request goes on to Express untouched, with two relay-wide duties done here first: the
 * X-Oneapi-Request-Id header on every relay path and new-api's CORS on the token-authenticated ones.
 */
@Injectable()
export class RelayEntry implements OnApplicationBootstrap {
  private readonly logger = new Logger('RelayEntry');
  private readonly limit: number;
  private readonly fallbackJson: BodyParser;
  private readonly trust: ReturnType<typeof proxyAddr.compile> | undefined;

  constructor(
    private readonly host: HttpAdapterHost,
    private readonly pipeline: RelayPipeline,
    private readonly realtime: RealtimeRelay,
    private readonly options: OptionService,
    private readonly load: SystemStatusService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limit = config.http.maxBodyBytes;
    // Compressed bodies in other charsets are refused (415): only readBoundedBody inflates, with its ratio bound.
    this.fallbackJson = express.json({
      limit: this.limit,
      type: ['application/json', 'application/*+json'],
      inflate: false,
      verify: verifyJsonDepth,
    }) as unknown as BodyParser;
    // The same trust rule as Express's `trust proxy` setting in the bootstrap (proxy-addr under both).
    this.trust = config.http.trustedProxies.length ? proxyAddr.compile(config.http.trustedProxies) : undefined;
  }

  /** The HTTP server exists once the application object does, and listens only after this hook. */
  onApplicationBootstrap(): void {
    const server = this.host.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    const next = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.serve(req, res)) return;
      for (const listener of next) listener.call(server, req, res);
    });
    // WebSocket handshakes (the Realtime route) arrive here in every deployment mode, cluster workers included.
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** An upgrade request: the Realtime route takes it; anywhere else there is no WebSocket (404, as for any unknown URL). */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (isRealtimePath(path)) {
      const overload = this.overload(req.method, path);
      if (overload) {
        socket.on('error', () => undefined);
        refuseUpgrade(socket, new RelayError(overload.message, 503, overload.code), newRequestId());
        return;
      }
      const query = q < 0 ? '' : url.slice(q + 1);
      const model = new URLSearchParams(query).get('model') ?? undefined;
      void this.realtime.open({ req, socket, head, ip: this.ipOf(req), model, queryKey: queryKey(query) });
      return;
    }
    socket.on('error', () => undefined);
    writeHttp(socket, 404, openAiError(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', ''));
  }

  /** True when the request was taken here. */
  private serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (!isRelayPath(path)) return false;
    requestIdOf(req, res);
    if (applyRelayCors(path, req, res)) return true;
    const overload = this.overload(req.method, path);
    if (overload) {
      void this.shed(req, res, path, overload);
      return true;
    }
    if (req.method === 'GET' && isRealtimePath(path)) {
      // The Realtime route without an upgrade: the key is checked first, as on every relay route.
      void this.notWebSocket(req, res, url.slice(path.length + 1));
      return true;
    }
    const match = matchRelayRoute(req.method, path);
    if (!match) return false;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const query = q < 0 ? '' : url.slice(q + 1);
    if ('notImplemented' in match) void this.notImplemented(req, res, query);
    else void this.relay(match.kind, req, res, path, query, match.route);
    return true;
  }

  /**
   * new-api's unimplemented OpenAI routes: 501 api_not_implemented for an authenticated caller (without the
   * request id: new-api's handler answers it, not its relay; a refused key carries it, as from its auth).
   */
  private async notImplemented(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    req.resume();
    try {
      await this.pipeline.authenticateOnly({ req, ip: this.ipOf(req), queryKey: queryKey(query) });
      sendJson(res, 501, openAiError('API not implemented', 'new_api_error', 'api_not_implemented'));
    } catch (error) {
      this.pipeline.renderError(res, error, 'openai', requestIdOf(req, res));
    }
  }

  private async notWebSocket(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    req.resume();
    const requestId = requestIdOf(req, res);
    try {
      await this.pipeline.authenticateOnly({ req, ip: this.ipOf(req), queryKey: queryKey(query) });
      this.pipeline.renderError(res, badRequest(NOT_A_HANDSHAKE), 'openai', requestId);
    } catch (error) {
      this.pipeline.renderError(res, error, 'openai', requestId);
    }
  }

  /** The performance monitor's verdict for this call (overload.ts); undefined lets it through. */
  private overload(method: string | undefined, path: string): Overload | undefined {
    if (exemptFromOverload(method, path)) return undefined;
    return overloadOf(this.load.current(), this.options);
  }

  /** 503 in the caller's error format (Anthropic's on /v1/messages), after the body is read off the socket. */
  private async shed(req: IncomingMessage, res: ServerResponse, path: string, overload: Overload): Promise<void> {
    await discardBody(req);
    const refusal = new RelayError(overload.message, 503, overload.code);
    this.pipeline.renderError(res, refusal, isAnthropicPath(path) ? 'anthropic' : 'openai', requestIdOf(req, res));
  }

  private ipOf(req: IncomingMessage): string {
    return this.trust ? proxyAddr(req, this.trust) : (req.socket.remoteAddress ?? '');
  }

  private async relay(
    kind: RelayKind,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    route?: RouteFacts,
  ): Promise<void> {
    const ip = this.ipOf(req);
    const queryKeyValue = queryKey(query);
    // The key is checked before the body is read: a stranger must not make the gateway buffer
    // MAX_REQUEST_BODY_MB (or learn how it parses bodies) without a valid key. The pipeline then answers
    // and logs the refusal as it does any other.
    let caller: RelayCaller;
    try {
      caller = await this.pipeline.authenticateOnly({ req, ip, queryKey: queryKeyValue });
    } catch (error) {
      // Discarded as it arrives (no buffering), and only then answered: a refusal sent mid-upload makes the
      // socket close under the client, which then sees a connection reset instead of the 401.
      await discardBody(req);
      await this.pipeline.handle(kind, { req, res, path, body: undefined, ip, queryKey: queryKeyValue, route }, () =>
        Promise.reject(error),
      );
      return;
    }
    let body: unknown;
    try {
      if (MULTIPART_KINDS.has(kind)) body = await readMultipart(req, this.limit);
      else body = await readJsonBody(req, res, this.limit, this.fallbackJson);
    } catch (error) {
      // A body error is answered like any relay error: in the client's own format (OpenAI, Anthropic or
      // Gemini), its message ending with the request id, as new-api's body checks do.
      const { status, message } =
        error instanceof MultipartError ? error : (describeBodyError(error) ?? { status: 400, message: BODY_UNREADABLE });
      const refusal = new RelayError(message, status, 'invalid_request', 'invalid_request_error');
      this.pipeline.renderError(res, refusal, formatOfKind(kind), requestIdOf(req, res));
      return;
    }
    try {
      await this.pipeline.handle(kind, { req, res, path, body, ip, queryKey: queryKeyValue, route }, () => Promise.resolve(caller));
    } catch (error) {
      const fault = serverFaultOf(error);
      if (fault.status === 503) this.logger.warn(`${path}: database unavailable (${(error as Error).message})`);
      else this.logger.error(`${path}: ${(error as Error)?.stack ?? String(error)}`);
      if (!res.headersSent)
        sendJson(res, fault.status, openAiError(withRequestId(fault.message, requestIdOf(req, res)), 'new_api_error', fault.code));
      else res.end();
    }
  }
}
