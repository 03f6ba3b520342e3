import { i18n } from '../i18n/setup';
import { Toast } from '../ui/semi';
import { userStore, clearStoredUser } from '../auth/user-store';

export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** Thrown after the client has already told the user (toast or redirect); callers only stop what they do. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Do not toast a success:false answer; the caller shows it its own way. */
  quiet?: boolean;
  /** An HTTP error status the caller handles itself, not toasted (e.g. 403 VERIFICATION_REQUIRED opens the verify dialog). */
  handledStatus?: number;
  signal?: AbortSignal;
}

/** Headers every console call carries: the logged-in user's id (checked against the session) and no caching. */
export function apiHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  const user = userStore.get();
  if (user) headers['New-Api-User'] = String(user.id);
  return headers;
}

export function withQuery(url: string, query?: Query): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${url}${url.includes('?') ? '&' : '?'}${text}` : url;
}

/** The error catalogue (spec 000 §8): one message per HTTP status, the server's words otherwise. */
export function messageForStatus(status: number, serverMessage: string): string {
  if (status === 429) return i18n.t('kit:error.tooManyRequests');
  if (status === 500) return i18n.t('kit:error.internal');
  if (status === 405) return i18n.t('kit:error.demoOnly');
  return i18n.t('kit:error.generic', { message: serverMessage });
}

function endSession(): never {
  clearStoredUser();
  window.location.assign('/login?expired=true');
  throw new ApiError('unauthorized', 401);
}

/** Sends one call and returns the whole envelope (for answers that carry more than `data`). */
export async function apiEnvelope<T, Extra extends object = object>(
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<Envelope<T> & Extra> {
  const headers = apiHeaders();
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(url, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (cause) {
    if ((cause as Error).name === 'AbortError') throw cause;
    Toast.error(i18n.t('kit:error.network'));
    throw new ApiError('network', 0);
  }
  if (response.status === 401) endSession();
  const envelope = (await response.json().catch(() => null)) as (Envelope<T> & Extra) | null;
  if (!response.ok) {
    const message = messageForStatus(response.status, envelope?.message ?? response.statusText);
    if (response.status !== options.handledStatus) Toast.error(message);
    throw new ApiError(message, response.status);
  }
  if (!envelope?.success) {
    const message = envelope?.message || response.statusText;
    if (!options.quiet) Toast.error(message);
    throw new ApiError(message, response.status);
  }
  return envelope;
}

async function request<T>(method: string, url: string, options?: RequestOptions): Promise<T> {
  return (await apiEnvelope<T>(method, url, options)).data;
}

/** The console API. Every method resolves with `data` or rejects with an ApiError already shown to the user. */
export const api = {
  get: <T>(url: string, options?: RequestOptions) => request<T>('GET', url, options),
  post: <T>(url: string, body?: unknown, options?: RequestOptions) => request<T>('POST', url, { ...options, body }),
  put: <T>(url: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', url, { ...options, body }),
  delete: <T>(url: string, options?: RequestOptions) => request<T>('DELETE', url, options),
};

/** For callers that only need to stop on a failure the client already reported. */
export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
