import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request as a provider fake sees it. */
export interface NativeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  raw: string;
  body: any;
  /** The test asked this provider to answer its error fixture once. */
  fail: boolean;
}

/** A small fake of one provider: the paths it owns and how it answers them from its fixtures. */
export interface ProviderFake {
  name: string;
  owns(exchange: Pick<NativeExchange, 'req' | 'path'>): boolean;
  answer(exchange: NativeExchange): void;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, contentType: string, text: string): void {
  res.writeHead(200, { 'content-type': contentType });
  res.end(text);
}
