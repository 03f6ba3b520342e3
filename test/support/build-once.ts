import { ensureServerBuilt } from './built-server.js';

/**
 * vitest globalSetup of the e2e tier: builds the server once, before any file starts, when dist/ is older than
 * the sources. The files that run the built server still call ensureServerBuilt (a no-op by then); without this,
 * two such files starting together could both rebuild dist/ and one would load it half written.
 */
export default function setup(): void {
  ensureServerBuilt();
}
