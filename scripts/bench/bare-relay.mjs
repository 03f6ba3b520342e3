// The streams scenario's yardstick: the least a Node process can do to relay a stream, a TCP proxy that
// pipes each client's socket to a connection of its own to the fake provider and back, byte for byte (no
// HTTP parsing, authentication, SSE tracking or billing). Its CPU per relayed chunk, measured like the
// gateway's, is what Node and the kernel cost on this machine before any work of the gateway's own.
// Run as a child process with BENCH_UPSTREAM_URL; prints `{"port": n}` on its first stdout line.
import { connect, createServer } from 'node:net';

const upstream = new URL(process.env.BENCH_UPSTREAM_URL);

const server = createServer({ noDelay: true }, (client) => {
  const provider = connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true });
  // pipe() keeps back-pressure both ways, as a relay must; either side's end or error closes both.
  client.pipe(provider).on('error', () => client.destroy());
  provider.pipe(client).on('error', () => provider.destroy());
  client.on('close', () => provider.destroy());
  provider.on('close', () => client.destroy());
  client.on('error', () => provider.destroy());
});
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => process.exit(0));
