import { channelTypeInfo, ChannelType, type BalanceKind } from '@gw/contracts';
import { UpstreamError, type UpstreamEndpoint, type UpstreamRequestInit, type UpstreamTarget } from './upstream.types.js';

export interface BuiltRequest {
  url: string;
  /** DELETE only for Ollama's model management (`/api/delete` takes a JSON body). */
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  /** The channel's UpstreamTarget.publicOnly, carried to the connection. */
  publicOnly?: boolean;
}

const PATHS: Record<UpstreamEndpoint, string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  responses: '/responses',
  responses_compact: '/responses/compact',
  images_generations: '/images/generations',
  audio_speech: '/audio/speech',
  images_edits: '/images/edits',
  audio_transcriptions: '/audio/transcriptions',
  audio_translations: '/audio/translations',
  rerank: '/rerank',
  moderations: '/moderations',
  edits: '/edits',
  models: '/models',
  billing_subscription: '/dashboard/billing/subscription',
  billing_usage: '/dashboard/billing/usage',
};

/**
 * new-api keeps the model's dots in Azure deployment names for channels created from 2025-05-10 (UTC) on and
 * removes them for older ones (`gpt-3.5-turbo` was deployed as `gpt-35-turbo`); imported channels keep their
 * creation time, so they build the same URL here as there.
 */
export const AZURE_KEEP_DOTS_SINCE = Date.UTC(2025, 4, 10) / 1000;

/** The Azure deployment a model is called on. */
export function azureDeployment(model: string, createdTime = 0): string {
  return createdTime > 0 && createdTime < AZURE_KEEP_DOTS_SINCE ? model.replaceAll('.', '') : model;
}

/**
 * Azure's Responses API is not per deployment (the model is in the body): the v1 surface answers at
 * `/openai/v1/responses?api-version=preview`, while AI Foundry resources (`*.cognitiveservices.azure.com`) take
 * `/openai/responses` with the channel's api-version, as new-api calls them.
 */
function azureResponsesUrl(base: string, path: string, apiVersion: string): URL {
  const foundry = base.includes('cognitiveservices.azure.com');
  const url = new URL(`${base}/openai${foundry ? '' : '/v1'}${path}`);
  url.searchParams.set('api-version', foundry ? apiVersion : 'preview');
  return url;
}

const GET_ENDPOINTS: ReadonlySet<UpstreamEndpoint> = new Set(['models', 'billing_subscription', 'billing_usage']);

/** The balance endpoint of each provider kind, under the channel's base URL (new-api channel-billing.go). */
const BALANCE_PATHS: Record<Exclude<BalanceKind, 'openai'>, string> = {
  credit_grants_remaining: '/dashboard/billing/credit_grants',
  credit_grants_available: '/dashboard/billing/credit_grants',
  siliconflow: '/v1/user/info',
  deepseek: '/user/balance',
  openrouter: '/v1/credits',
  moonshot: '/v1/users/me/balance',
};

/** Headers an override may never set: they belong to the transport, not to the admin. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** True when the client can call this channel type today (OpenAI wire format, Azure, custom URL). */
export function isOpenAiCompatible(type: number): boolean {
  return channelTypeInfo(type)?.openAiCompatible ?? false;
}

/** The base URL actually used: the channel's, else the type's default, without trailing slashes. */
export function effectiveBaseUrl(target: Pick<UpstreamTarget, 'type' | 'baseUrl'>): string {
  const base = (target.baseUrl || channelTypeInfo(target.type)?.baseUrl || '').trim();
  return base.replace(/\/+$/, '');
}

/**
 * Builds the URL, method and headers for one upstream call. Pure, so the per-type rules are
 * unit-tested without a network. The URL always stays on the channel's own origin: a model name or
 * a query can change the path, never the host the key is sent to.
 */
export function buildUpstreamRequest(
  target: UpstreamTarget,
  endpoint: UpstreamEndpoint,
  init: UpstreamRequestInit = {},
  azureDefaultVersion = '2025-04-01-preview',
): BuiltRequest {
  if (!isOpenAiCompatible(target.type))
    throw new UpstreamError('unsupported', `channel type ${target.type} is not supported by the upstream client yet`);
  const base = effectiveBaseUrl(target);
  const origin = parseOrigin(base);
  const method = init.method ?? (GET_ENDPOINTS.has(endpoint) ? 'GET' : 'POST');
  const headers: Record<string, string> = { accept: init.stream ? 'text/event-stream' : 'application/json' };
  if (method === 'POST') headers['content-type'] = 'application/json';
  const model = init.model ?? modelOf(init.body) ?? '';
  let url: URL;

  if (target.type === ChannelType.Azure) {
    if (endpoint === 'billing_subscription' || endpoint === 'billing_usage')
      throw new UpstreamError('unsupported', 'Azure has no billing endpoint');
    const apiVersion = target.other?.trim() || azureDefaultVersion;
    if (endpoint === 'responses' || endpoint === 'responses_compact') {
      url = azureResponsesUrl(base, PATHS[endpoint], apiVersion);
    } else {
      url =
        endpoint === 'models'
          ? new URL(`${base}/openai/models`)
          : new URL(`${base}/openai/deployments/${encodeURIComponent(azureDeployment(model, target.createdTime))}${PATHS[endpoint]}`);
      url.searchParams.set('api-version', apiVersion);
    }
    if (target.key) headers['api-key'] = target.key;
  } else if (target.type === ChannelType.Cloudflare) {
    url = cloudflareUrl(base, target.other, endpoint);
    if (target.key) headers.authorization = `Bearer ${target.key}`;
  } else if (target.type === ChannelType.Custom) {
    if (endpoint !== 'chat' && endpoint !== 'completions' && endpoint !== 'embeddings') {
      throw new UpstreamError('unsupported', 'a custom channel has only its request URL');
    }
    url = new URL(base.replaceAll('{model}', encodeURIComponent(model)));
    if (target.key) headers.authorization = `Bearer ${target.key}`;
  } else {
    const info = channelTypeInfo(target.type);
    const path = endpoint === 'chat' && info?.chatPath ? info.chatPath : `${info?.pathPrefix ?? '/v1'}${PATHS[endpoint]}`;
    url = new URL(`${base}${path}`);
    if (target.key) headers.authorization = `Bearer ${target.key}`;
    if (target.organization && target.type === ChannelType.OpenAI) headers['openai-organization'] = target.organization;
  }

  for (const [name, value] of Object.entries(init.query ?? {})) url.searchParams.set(name, value);
  if (url.origin !== origin) throw new UpstreamError('unsupported', 'the upstream URL must stay on the channel base URL origin');

  for (const [name, value] of Object.entries(init.extraHeaders ?? {})) setHeader(headers, name, value, target.key);
  for (const [name, value] of Object.entries(target.headerOverride ?? {})) setHeader(headers, name, value, target.key);
  return withRule({ url: url.toString(), method, headers }, target);
}

/** Handshake headers the WebSocket client owns: an override never sets them. */
const SOCKET_HEADERS = /^sec-websocket-/;

/**
 * The WebSocket handshake of OpenAI's Realtime API on a channel, as new-api builds it: the base URL with
 * `https:` made `wss:` (`http:` made `ws:`) and `/v1/realtime?model=<upstream model>` under the type's path
 * prefix, or Azure's `/openai/realtime?deployment=<deployment>&api-version=<version>` with its `api-key` header;
 * elsewhere the bearer key (and OpenAI's organization header) and `OpenAI-Beta: realtime=v1` when the client
 * speaks the beta protocol; then the channel's header override. The URL stays on the channel's origin.
 */
export function buildRealtimeRequest(
  target: UpstreamTarget,
  model: string,
  options: { beta: boolean; azureDefaultVersion: string },
): BuiltRequest {
  if (!isOpenAiCompatible(target.type) || target.type === ChannelType.Custom || target.type === ChannelType.Cloudflare)
    throw new UpstreamError('unsupported', `channel type ${target.type} has no OpenAI Realtime endpoint`);
  const base = effectiveBaseUrl(target);
  const origin = parseOrigin(base);
  const headers: Record<string, string> = {};
  let url: URL;
  if (target.type === ChannelType.Azure) {
    url = new URL(`${base}/openai/realtime`);
    url.searchParams.set('deployment', azureDeployment(model, target.createdTime));
    url.searchParams.set('api-version', target.other?.trim() || options.azureDefaultVersion);
    if (target.key) headers['api-key'] = target.key;
  } else {
    url = new URL(`${base}${channelTypeInfo(target.type)?.pathPrefix ?? '/v1'}/realtime`);
    url.searchParams.set('model', model);
    if (target.key) headers.authorization = `Bearer ${target.key}`;
    if (target.organization && target.type === ChannelType.OpenAI) headers['openai-organization'] = target.organization;
  }
  if (url.origin !== origin) throw new UpstreamError('unsupported', 'the upstream URL must stay on the channel base URL origin');
  // new-api sends Azure its api-key alone.
  if (options.beta && target.type !== ChannelType.Azure) headers['openai-beta'] = 'realtime=v1';
  for (const [name, value] of Object.entries(target.headerOverride ?? {}))
    if (!SOCKET_HEADERS.test(name.toLowerCase())) setHeader(headers, name, value, target.key);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return withRule({ url: url.toString(), method: 'GET', headers }, target);
}

/** Cloudflare Workers AI's OpenAI-compatible endpoints live under the account (the channel's `other`), as new-api calls them. */
const CLOUDFLARE_ENDPOINTS: ReadonlySet<UpstreamEndpoint> = new Set(['chat', 'completions', 'embeddings', 'responses']);

function cloudflareUrl(base: string, other: string, endpoint: UpstreamEndpoint): URL {
  const account = other.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(account))
    throw new UpstreamError('unsupported', 'a Cloudflare channel needs its account ID in the other field');
  if (!CLOUDFLARE_ENDPOINTS.has(endpoint))
    throw new UpstreamError('unsupported', `Cloudflare Workers AI has no OpenAI ${endpoint} endpoint`);
  return new URL(`${base}/client/v4/accounts/${account}/ai/v1${PATHS[endpoint]}`);
}

/**
 * A POST to a provider with its own wire format (Anthropic, Gemini, ...): `path` (with its query) under the
 * channel's base URL, the provider's auth headers, then the channel's header override. The same origin rule
 * as every other call: the key never leaves the channel's host.
 */
export function buildProviderRequest(
  target: UpstreamTarget,
  path: string,
  authHeaders: Record<string, string>,
  stream: boolean,
): BuiltRequest {
  const base = effectiveBaseUrl(target);
  const origin = parseOrigin(base);
  const url = new URL(`${base}${path}`);
  if (url.origin !== origin) throw new UpstreamError('unsupported', 'the upstream URL must stay on the channel base URL origin');
  const headers: Record<string, string> = { accept: stream ? 'text/event-stream' : 'application/json', 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(authHeaders)) setHeader(headers, name, value, target.key);
  for (const [name, value] of Object.entries(target.headerOverride ?? {})) setHeader(headers, name, value, target.key);
  return withRule({ url: url.toString(), method: 'POST', headers }, target);
}

/**
 * The single-GET balance query of a provider that has one (DeepSeek, SiliconFlow, OpenRouter, ...), on
 * the channel's own origin with its bearer key. OpenAI's two billing calls use the regular endpoints.
 */
export function buildBalanceRequest(target: UpstreamTarget): BuiltRequest {
  const kind = channelTypeInfo(target.type)?.balance;
  if (!kind || kind === 'openai') throw new UpstreamError('unsupported', 'balance query is not supported for this channel type');
  const base = effectiveBaseUrl(target);
  const origin = parseOrigin(base);
  const url = new URL(`${base}${BALANCE_PATHS[kind]}`);
  if (url.origin !== origin) throw new UpstreamError('unsupported', 'the upstream URL must stay on the channel base URL origin');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.key) headers.authorization = `Bearer ${target.key}`;
  for (const [name, value] of Object.entries(target.headerOverride ?? {})) setHeader(headers, name, value, target.key);
  return withRule({ url: url.toString(), method: 'GET', headers }, target);
}

/** A request for a channel whose base URL must stay public carries that rule to its connection. */
function withRule(built: BuiltRequest, target: Pick<UpstreamTarget, 'publicOnly'>): BuiltRequest {
  if (target.publicOnly) built.publicOnly = true;
  return built;
}

function setHeader(headers: Record<string, string>, name: string, value: unknown, key: string): void {
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || typeof value !== 'string' || /[\r\n]/.test(value)) return;
  for (const existing of Object.keys(headers)) if (existing.toLowerCase() === lower) delete headers[existing];
  // new-api lets an override carry the key in another header: `{"x-api-key": "{api_key}"}`.
  headers[lower] = value.replaceAll('{api_key}', key);
}

function parseOrigin(base: string): string {
  let parsed: URL;
  try {
    parsed = new URL(base.replaceAll('{model}', 'model'));
  } catch {
    throw new UpstreamError('unsupported', base ? 'the channel base URL is not a valid URL' : 'the channel has no base URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UpstreamError('unsupported', 'the channel base URL must be http or https');
  return parsed.origin;
}

function modelOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const model = (body as { model?: unknown }).model;
  return typeof model === 'string' ? model : undefined;
}
