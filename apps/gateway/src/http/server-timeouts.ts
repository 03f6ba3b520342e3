import type { Server } from 'node:http';
import type { ServerTimeouts } from '@gw/core';

/**
 * Sets the server's timeouts from the configuration instead of Node's defaults, which change between
 * versions and leave an idle socket open for ever: a client trickling its headers is cut at
 * headersMs, a slow upload at requestMs, an idle keep-alive connection at keepAliveMs, and a socket
 * with no byte either way at idleMs (threats F4). Streams are not cut by idleMs while chunks flow.
 */
export function applyServerTimeouts(server: Server, timeouts: ServerTimeouts): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.setTimeout(timeouts.idleMs);
}
