/// <reference lib="dom" />
import type { Page } from 'playwright-core';

export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data: T;
}

/** Calls the console API from inside the page, with its session cookie and New-Api-User, as the console does. */
export async function consoleCall<T = unknown>(page: Page, method: string, url: string, body?: unknown): Promise<Envelope<T>> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const user = JSON.parse(localStorage.getItem('user') ?? 'null') as { id: number } | null;
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (user) headers['New-Api-User'] = String(user.id);
      const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return response.json();
    },
    { method, url, body },
  ) as Promise<Envelope<T>>;
}
