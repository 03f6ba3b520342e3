/** Why a reply failed, as the playground tells the user: a kind (shown in their language) and the server's words. */
export const RELAY_ERROR_KINDS = [
  'expired',
  'quota',
  'rateLimited',
  'noChannel',
  'groupNotAllowed',
  'modelNotAllowed',
  'badRequest',
  'upstream',
  'network',
  'cutOff',
  'interrupted',
] as const;

export type RelayErrorKind = (typeof RELAY_ERROR_KINDS)[number];

export interface RelayFailure {
  kind: RelayErrorKind;
  /** The gateway's own message (English), kept as detail under the translated headline. */
  detail: string;
  status?: number;
}

/** The OpenAI error body the relay answers with (`{error:{message,type,code}}`), or the console envelope. */
interface ErrorBody {
  error?: { message?: string; code?: string | number | null; type?: string };
  message?: string;
}

const QUOTA_CODES = new Set(['insufficient_user_quota', 'pre_consume_token_quota_failed', 'insufficient_quota']);

function kindOf(status: number | undefined, code: string, message: string): RelayErrorKind {
  if (status === 401) return 'expired';
  if (status === 429 || code === 'rate_limited' || code === 'rate_limit_exceeded') return 'rateLimited';
  if (QUOTA_CODES.has(code) || /quota/i.test(message)) return 'quota';
  if (code === 'group_not_allowed') return 'groupNotAllowed';
  if (code === 'model_not_allowed') return 'modelNotAllowed';
  if (/no available channel/i.test(message) || (code === 'model_not_found' && status === 503)) return 'noChannel';
  if (status !== undefined && status >= 400 && status < 500) return 'badRequest';
  return 'upstream';
}

/** Reads a failed answer (HTTP status + body text) or an error event inside the stream (no status). */
export function classifyRelayError(status: number | undefined, text: string): RelayFailure {
  let body: ErrorBody | null = null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    body = null;
  }
  const detail = body?.error?.message ?? body?.message ?? (text.trim() || (status ? `HTTP ${status}` : ''));
  const code = String(body?.error?.code ?? '');
  return { kind: kindOf(status, code, detail), detail, status };
}

export const networkFailure = (detail: string): RelayFailure => ({ kind: 'network', detail });
