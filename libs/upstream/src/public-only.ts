import dns, { type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isBlockedAddress } from '@gw/core';
import { UpstreamError } from './upstream.types.js';

/**
 * The connect-time half of the base URL rule (threats S5, DNS rebinding): a channel whose base URL was checked
 * public when it was saved must not be reached on a private address because its name answers differently now.
 * A connection for such a channel resolves the name with this lookup, which refuses the whole answer when any
 * address in it is private or reserved (the outbound guard's classifier, every form of it), so the socket can
 * only go to an address checked here. It runs once per new connection; kept-alive ones are reused as they are.
 */

/** What a refused connection reports: a connect failure with no address or name in it (the client sees it). */
export function addressRefused(): UpstreamError {
  return new UpstreamError('connect', 'could not reach upstream (its address is not public)');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls.connect (and undici's connector) that answers only when every address is public. */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  // Read at call time, so a resolver swapped in (a test's) answers here as it does for the save-time check.
  dns.lookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
    if (error) return callback(error, []);
    if (!addresses.length || addresses.some((a) => isBlockedAddress(a.address))) return callback(addressRefused(), []);
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** A literal IP host (no lookup happens for one) that the rule refuses; names are left to publicOnlyLookup. */
export function refusedLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) !== 0 && isBlockedAddress(bare);
}
