// The loopback HTTP server under the small fake task providers: records each request with its parsed JSON
// body and hands it to the provider's route function, which answers with a status and a JSON body.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
}

export type JsonRoute = (req: RecordedRequest) => { status: number; body: unknown } | undefined;

export interface JsonServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startJsonServer(route: JsonRoute): Promise<JsonServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const recorded = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    requests.push(recorded);
    const answer = route(recorded) ?? { status: 404, body: { message: `no route ${req.method} ${url.pathname}` } };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
