import { createServer, type Server } from 'node:http';

export interface StartupProbe {
  close(): Promise<void>;
}

/**
 * Holds the port while migrations run, so orchestrators see the instance alive but not ready instead
 * of a refused connection: `/healthz` 200, `/readyz` 503, anything else 503 with Retry-After. The real
 * application cannot answer yet: its modules load options and caches from tables the migrations create.
 */
export async function holdPortWhileStarting(port: number, host: string): Promise<StartupProbe> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'close');
    if (path === '/healthz') {
      res.end(JSON.stringify({ status: 'ok' }));
      return;
    }
    res.statusCode = 503;
    res.setHeader('Retry-After', '5');
    if (path === '/readyz')
      res.end(JSON.stringify({ status: 'not ready', ready: false, phase: 'starting', checks: { database: 'migrating' } }));
    else res.end(JSON.stringify({ success: false, message: 'the gateway is starting, try again in a few seconds' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
