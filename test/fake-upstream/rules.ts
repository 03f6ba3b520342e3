import type { IncomingMessage } from 'node:http';

/** What a scripted rule can make the fake provider do instead of its normal answer. */
export interface FakeRule {
  /** Path prefix to match, e.g. '/v1/chat/completions'. */
  path?: string;
  model?: string;
  /** Matches the bearer key (without 'Bearer '). */
  key?: string;
  when?: (req: IncomingMessage, body: any) => boolean;
  /** How many requests this rule applies to; forever when absent. */
  times?: number;
  status?: number;
  errorMessage?: string;
  retryAfter?: number;
  delayMs?: number;
  chunkDelayMs?: number;
  omitUsage?: boolean;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    cached_tokens?: number;
    cache_creation_tokens?: number;
    /** Input image and audio tokens, reported in prompt_tokens_details when set. */
    image_tokens?: number;
    audio_tokens?: number;
  };
  reply?: string;
  /** Chat streams only: sent word by word as `delta.reasoning_content` before the reply (reasoning models). */
  reasoning?: string;
  resetAfterChunks?: number;
  hang?: boolean;
  /** Chat streams only: chunks as fast as the reader takes them (honouring back-pressure) until it goes away. */
  flood?: boolean;
  redirectTo?: string;
  /** Pads the JSON answer with this many bytes (size-cap tests). */
  padBytes?: number;
  /**
   * Replays a recorded provider answer verbatim (wire fixtures: test/fixtures/relay-formats/). A list is
   * written piece by piece, `chunkDelayMs` (20) apart, so each piece reaches the gateway as its own read.
   */
  raw?: { status?: number; contentType: string; body: string | Buffer | (string | Buffer)[] };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  time: number;
  /** The client went away before the answer ended. */
  aborted: boolean;
  /** Body bytes written so far (flood answers). */
  bytesSent?: number;
}

export function ruleMatches(rule: FakeRule, req: IncomingMessage, path: string, body: any): boolean {
  if (rule.times !== undefined && rule.times <= 0) return false;
  if (rule.path && !path.startsWith(rule.path)) return false;
  if (rule.model && body?.model !== rule.model) return false;
  if (rule.key && req.headers.authorization?.replace(/^Bearer\s+/i, '') !== rule.key) return false;
  if (rule.when && !rule.when(req, body)) return false;
  return true;
}
