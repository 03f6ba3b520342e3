import dns, { type LookupAddress } from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';

/**
 * A scripted resolver for the DNS rebinding tests (threats S5): put in place of Node's own lookups (both the
 * callback one a connection makes and the promise one the save-time check makes), in the test process only.
 * `answerFor` answers the names it knows (an empty list: the name does not resolve); undefined leaves a name
 * to the system resolver.
 */
export function scriptResolver(answerFor: (host: string) => LookupAddress[] | undefined): () => void {
  const systemLookup = dns.lookup;
  const systemPromisesLookup = dnsPromises.lookup;
  (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback?: (...args: unknown[]) => void) => {
    const answers = answerFor(host);
    if (!answers) return (systemLookup as (...args: unknown[]) => void)(host, options, callback);
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    if (!answers.length)
      return process.nextTick(() => done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })));
    process.nextTick(() => {
      if ((options as { all?: boolean } | undefined)?.all) done(null, answers);
      else done(null, answers[0]!.address, answers[0]!.family);
    });
  };
  (dnsPromises as { lookup: unknown }).lookup = (host: string, options?: unknown) => {
    const answers = answerFor(host);
    if (!answers) return (systemPromisesLookup as (...args: unknown[]) => unknown)(host, options);
    if (!answers.length) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    return Promise.resolve((options as { all?: boolean } | undefined)?.all ? answers : answers[0]);
  };
  // `import { lookup } from 'node:dns/promises'` bindings follow the swap.
  syncBuiltinESMExports();
  return () => {
    (dns as { lookup: unknown }).lookup = systemLookup;
    (dnsPromises as { lookup: unknown }).lookup = systemPromisesLookup;
    syncBuiltinESMExports();
  };
}
