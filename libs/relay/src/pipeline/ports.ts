import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExprRequest } from '@gw/contracts';
import type { BalanceView } from '../billing/reserve-overlap.js';
import type { AudioRatios, AudioUsage, PriceInfo } from '../pricing/billing-formulas.js';
import type { ToolCharge } from '../pricing/tool-prices.js';
import type { Usage } from '../stream/usage.js';
import type { RouteFacts } from './relay-request.js';

export type { PriceInfo };

/**
 * What the pipeline needs from pricing (built in ./pricing by its own helper) and from the token lib,
 * as abstract classes so the module binds the real services to them and unit tests can fake them.
 */

export abstract class RelayPricing {
  /** With the request a billing expression reads, a model billed by its expression is priced by it (the HTTP relay). */
  abstract resolve(model: string, usingGroup: string, userGroup: string, request?: ExprRequest): PriceInfo | undefined;
  abstract preConsumeQuota(info: PriceInfo, promptTokens: number, maxTokens: number): number;
  /** The charge of an answer, its billed tool calls (toolCharges) included. */
  abstract settleQuota(info: PriceInfo, usage: Usage, tools?: readonly ToolCharge[]): number;
  /** A fixed-price model's charge for `factor` calls (images: count × size × quality). */
  abstract perCallQuota(info: PriceInfo, factor: number): number;
  /** AudioRatio and AudioCompletionRatio of a model (the Realtime relay). */
  abstract audioRatios(model: string): AudioRatios;
  /** One Realtime response's charge, its text and audio tokens priced apart. */
  abstract audioQuota(info: PriceInfo, usage: AudioUsage, ratios: AudioRatios): number;
  abstract usableGroups(userGroup: string): Record<string, string>;
  abstract countPromptTokens(model: string, body: unknown): number;
  abstract countTextTokens(model: string, text: string): number;
  /** Group ratio alone, for models billed at the unset-ratio sentinel. */
  abstract groupRatio(usingGroup: string, userGroup: string): number;
  /** GroupGroupRatio's override for the user's group in the using group, when set. */
  abstract specialGroupRatio(usingGroup: string, userGroup: string): number | undefined;
}

export abstract class RelayRateLimiter {
  abstract check(userId: number, group: string): Promise<void>;
  abstract recordSuccess(userId: number, group: string): void;
}

/** The caller of one relay request, whatever authenticated it (token or playground session). */
export interface RelayCaller {
  userId: number;
  username: string;
  role: number;
  userGroup: string;
  /** 0 for the playground (billed to the user alone). */
  tokenId: number;
  tokenName: string;
  /** The token's group ('' = the user's group), or the playground's chosen group. */
  requestedGroup: string;
  /** The token's cross_group_retry: an `auto` request moves to the next auto group once a group's retries are spent. */
  crossGroupRetry?: boolean;
  /** Models the token is limited to, or undefined when it is not limited. */
  modelLimits?: ReadonlySet<string> | readonly string[];
  acceptUnsetModelRatioModel: boolean;
  recordIp: boolean;
  pinnedChannelId?: number;
  /** True on /pg: no per-user model rate limit (new-api applies it on /v1 only). */
  playground: boolean;
  /**
   * The balances as the relay's memory had them when the caller was authenticated (may lag behind the
   * database); only used to decide whether the reserve may run beside the upstream call. Absent: it may not.
   */
  balances?: BalanceView;
}

/** One relay request as the pipeline sees it: the bare Node request and response, read and parsed. */
export interface RelayCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The URL path without the query. */
  path: string;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  /** The client's address (behind TRUSTED_PROXIES, from X-Forwarded-For). */
  ip: string;
  /** The `?key=` query parameter, one of new-api's key carriers. */
  queryKey?: string;
  /** What the route's path says of the request (Gemini's model and stream mode). */
  route?: RouteFacts;
}

/**
 * What token authentication reads of a request; `authorization`, when set, stands for the Authorization header
 * (a key the Realtime relay took from the `openai-insecure-api-key.` subprotocol, as new-api does).
 */
export type RelayCredentialsOf = Pick<RelayCall, 'req' | 'ip' | 'queryKey'> & { authorization?: string };

export abstract class RelayAuthenticator {
  abstract authenticate(call: RelayCredentialsOf): Promise<RelayCaller>;
  abstract applySpend(tokenId: number, quotaDelta: number): void;
  abstract markExhausted(tokenId: number): Promise<void>;
}
