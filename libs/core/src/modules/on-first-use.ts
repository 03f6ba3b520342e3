import { createRequire } from 'node:module';

/*
 * Modules loaded when they are first needed instead of when the process starts: the libraries only some
 * installations ever call (WebAuthn, SMTP, AWS signing, OpenID Connect, the MySQL and Redis clients on the
 * default SQLite without Redis, undici, the Prometheus client while metrics are off). Each one loaded at start
 * costs every gateway process, cluster workers included, its memory and the time to read its files, although
 * most processes never use it. test/e2e/ops-lazy-modules checks that a default gateway loads none of them.
 */

/** An ES module (or any asynchronous load) on first use. A failed load is not kept: the next call tries again. */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

const requireHere = createRequire(import.meta.url);

/**
 * A CommonJS package on first use, synchronously, for code that cannot wait (a constructor, a sync path).
 * `T` is the package's type: `requireOnFirstUse<typeof import('ioredis')>('ioredis')`.
 */
export function requireOnFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(specifier) as T);
}
