/**
 * A console API client for e2e tests: keeps the session cookie like a browser, and sends
 * `New-Api-User` once logged in (as the real console does).
 */
/** new-api's answer to a console call whose access token is wrong or revoked: HTTP 200, success:false. */
export const INVALID_ACCESS_TOKEN = { success: false, message: 'no permission: the access token is invalid' };

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  cookie?: string;
  userId?: number;
  /** Extra headers sent on every request (e.g. Authorization with an access token). */
  headers: Record<string, string> = {};

  constructor(readonly baseUrl: string) {}

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** Sends `rawBody` exactly as given (malformed JSON, oversized bodies). */
  async raw(method: string, path: string, rawBody: string | Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.send(method, path, rawBody, { 'content-type': 'application/json', ...headers });
  }

  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return this.send(method, path, payload, body === undefined ? headers : { 'content-type': 'application/json', ...headers });
  }

  async login(username: string, password: string): Promise<ApiResponse> {
    const res = await this.post('/api/user/login', { username, password });
    if (res.body?.success) this.userId = res.body.data.id;
    return res;
  }

  private async send(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    headers: Record<string, string>,
  ): Promise<ApiResponse> {
    const all: Record<string, string> = { ...this.headers, ...headers };
    if (this.cookie) all.cookie = this.cookie;
    if (this.userId !== undefined && !('New-Api-User' in all) && !('new-api-user' in all)) all['New-Api-User'] = String(this.userId);
    const res = await fetch(this.baseUrl + path, { method, headers: all, body: body as BodyInit | undefined });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (setCookie) {
      const value = setCookie.split(';')[0]!;
      this.cookie = value === 'session=' ? undefined : value;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON body (HTML, SSE): tests read `text`.
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  }
}
