import type { RelayChannel } from '@gw/channel';
import type { TaskEntity } from './task.entity.js';

/** A submit the provider accepted, or refused with its own words. */
export type SubmitOutcome =
  | { ok: true; upstreamId: string; /** The answer the client gets (the provider's, or one built in its shape). */ body: unknown; status: number }
  | { ok: false; status: number; code: string; message: string };

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
}

/** A validated submit: the model it is routed and priced under and the body to forward. */
export interface PlannedSubmit {
  model: string;
  action: string;
  body: Record<string, unknown>;
}

/**
 * One provider family of the `tasks` table (Suno, a video API …). Adding a family is one folder with one
 * of these: the shared relay does authentication, routing, pricing, the charge, the row and the answer;
 * the shared poller does the state machine and refunds.
 */
export interface TaskProvider {
  /** The `platform` column value. */
  readonly platform: string;
  /** Channel types this provider serves. */
  readonly channelTypes: readonly number[];
  /** Reads a submit; throws TaskRelayError for a bad request. */
  plan(action: string, body: unknown): PlannedSubmit;
  submit(channel: RelayChannel, planned: PlannedSubmit): Promise<SubmitOutcome>;
  /** Reports for some unfinished rows of one channel (rows the provider does not mention stay as they are). */
  fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]>;
}

/** Injection token of the registered providers. */
export const TASK_PROVIDERS = Symbol('TASK_PROVIDERS');
