import { OneTripError } from './group-commit.js';
import type { PgClient } from './raw-handles.js';

/** A pooled pg client as the trip uses it: a query without values goes by the simple query protocol. */
interface TripClient {
  query(text: string): Promise<unknown>;
  release(destroy?: boolean | Error): void;
}

/**
 * The group commit's one-trip batches on PostgreSQL: `BEGIN; …statements…; COMMIT` as ONE text on a client
 * of the driver's pool. A query without parameters goes by pg's simple query protocol, which runs every
 * statement of the text in one round trip (the extended protocol, used for anything with parameters or a
 * name, refuses more than one), so no pool of its own is needed: nothing else of the gateway sends a
 * parameterless multi-statement text on that pool (its literals come from the planners, see sqlLiteral).
 */
export class PostgresOneTrip {
  private closed = false;
  /** Trips under way: close() lets them finish (ending the pool under one would make its outcome unknown). */
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly connect: () => Promise<PgClient>) {}

  /**
   * The statements' results (each a pg Result) in order. A server error (the server skips the rest of the
   * text, so the COMMIT never ran) is rolled back and thrown as OneTripError 'no'; anything else (a lost
   * connection: the COMMIT may have run) as 'unknown'. undefined once closed.
   */
  run(statements: string[]): Promise<unknown[] | undefined> {
    const trip = this.trip(statements);
    this.running.add(trip);
    void trip.catch(() => undefined).finally(() => this.running.delete(trip));
    return trip;
  }

  /** After a graceful shutdown's drain: later batches go statement by statement. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running]);
  }

  private async trip(statements: string[]): Promise<unknown[] | undefined> {
    if (this.closed) return undefined;
    let client: TripClient;
    try {
      client = (await this.connect()) as unknown as TripClient;
    } catch (error) {
      // Nothing was sent.
      throw new OneTripError(error, 'no');
    }
    try {
      const results = await client.query(`BEGIN;\n${statements.join(';\n')};\nCOMMIT`);
      client.release();
      return (results as unknown[]).slice(1, 1 + statements.length);
    } catch (error) {
      // An error the server answered (severity ERROR) left the transaction aborted, not committed.
      if ((error as { severity?: string }).severity !== 'ERROR') {
        client.release(error as Error);
        throw new OneTripError(error, 'unknown');
      }
      try {
        await client.query('ROLLBACK');
        client.release();
      } catch (rollbackError) {
        // The server rolls back a transaction whose connection goes away: the pool drops this client.
        client.release(rollbackError as Error);
      }
      throw new OneTripError(error, 'no');
    }
  }
}
