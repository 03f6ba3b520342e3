import type { RelayChannel } from '@gw/channel';
import type { TaskUsage } from '@gw/contracts';
import type { TaskEntity } from './task.entity.js';

/** A submit the provider accepted, or refused with its own words. */
export type SubmitOutcome =
  | {
      ok: true;
      upstreamId: string /** The answer the client gets (the provider's, or one built in its shape). */;
      body: unknown;
      status: number;
    }
  | {
      ok: false;
      status: number;
      code: string;
      message: string;
      /**
       * The provider's HTTP status, for providers that answer a refusal in a status of their own: new-api
       * fails a submit whose answer is not a 200 with that status, and its retry rules read it.
       */
      upstreamStatus?: number;
    };

/**
 * A submit the provider refused, answered to the client as new-api does (400, the provider's message), with the
 * provider's own status kept for the retry rules.
 */
export function submitRefused(upstreamStatus: number, message: string, code = 'task_failed'): SubmitOutcome {
  return { ok: false, status: 400, code, message, upstreamStatus };
}

/** Where a task stands at its provider. */
export interface TaskReport {
  upstreamId: string;
  status: string;
  progress: string;
  failReason: string;
  resultUrl?: string;
  startTime?: number;
  finishTime?: number;
  data?: unknown;
  /** Tokens the provider says the finished task used: re-prices a task whose model is priced by ratio. */
  totalTokens?: number;
  /** Billing multipliers as the finished task turned out (e.g. the seconds really rendered). */
  finalRatios?: Record<string, number>;
  /** Facts of the finished task for a task expression (seconds rendered, tokens), over those of the submit. */
  usage?: TaskUsage;
}

/** A validated submit: the model it is routed and priced under and the body to forward. */
export interface PlannedSubmit {
  model: string;
  action: string;
  body: Record<string, unknown>;
  /** Multipliers of the per-call price (video: seconds, size), recorded in the billing context. */
  ratios?: Record<string, number>;
  /** What a task expression reads with u() (seconds, resolution, mode …; billing-expr/task-usage.ts). */
  usage?: TaskUsage;
  /** The caller's task this one derives from (a remix): it runs on that task's channel. */
  originTaskId?: string;
}

/** What the shared relay hands a provider's submit besides the plan. */
export interface SubmitContext {
  /** The id the client will know the task by (`task_…`), when the provider hides the upstream id. */
  publicId: string;
  origin?: TaskEntity;
}

/**
 * One provider family of the `tasks` table (Suno, a video API …). Adding a family is one folder with one
 * of these: the shared relay does authentication, routing, pricing, the charge, the row and the answer;
 * the shared poller does the state machine and refunds.
 */
export interface TaskProvider {
  /** The provider's name (routes address it by this). */
  readonly platform: string;
  /** `platform` values of the rows it polls (new-api stores video tasks under their channel type). */
  readonly polls: readonly string[];
  /** The `platform` column of a new row on this channel. */
  platformOf(channel: RelayChannel): string;
  /** True when clients get a `task_…` id of ours instead of the provider's. */
  readonly publicIds: boolean;
  /** Channel types this provider serves. */
  readonly channelTypes: readonly number[];
  /** Reads a submit; throws TaskRelayError for a bad request. */
  plan(action: string, body: unknown): PlannedSubmit;
  submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome>;
  /** Reports for some unfinished rows of one channel (rows the provider does not mention stay as they are). */
  fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]>;
  /**
   * Where the finished video's bytes are, when reading them needs the channel's credentials
   * (`/v1/videos/:id/content`). Without it the content route streams the task's public result URL.
   */
  contentSource?(channel: RelayChannel, row: TaskEntity): ContentSource | undefined;
}

/** An upstream URL and the headers that open it. */
export interface ContentSource {
  url: string;
  headers: Record<string, string>;
}

/** Injection token of the registered providers. */
export const TASK_PROVIDERS = Symbol('TASK_PROVIDERS');
