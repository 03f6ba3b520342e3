import { sqlCase, sqlLiteral, sqlSum } from '@gw/database';

/** What both one-trip planners (mysql-combined-batch.ts, postgres-combined-batch.ts) know of a movement. */
interface Movement {
  kind: 'reserve' | 'settle' | 'release';
  userId: number;
  tokenId: number;
  requestId: string;
}

/**
 * The batch's movements grouped by kind, user and token: refund and settle groups first, then reserves (the
 * order both planners rely on: nothing is answered before the commit, so it is a valid one), otherwise in
 * order of arrival.
 */
export function groupsInTripOrder<T extends Movement>(trips: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const trip of trips) {
    const key = `${trip.kind === 'reserve' ? 1 : 0}:${trip.kind}:${trip.userId}:${trip.tokenId}`;
    const group = groups.get(key);
    if (group) group.push(trip);
    else groups.set(key, [trip]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.charCodeAt(0) - b.charCodeAt(0)).map(([, group]) => group);
}

/** A group's user, token and request ids as SQL literals; undefined when one cannot be a plain literal. */
export function groupLiterals(group: readonly Movement[]): { user: string; token: string; withToken: boolean; inIds: string } | undefined {
  const first = group[0];
  if (!first) return undefined;
  const user = sqlLiteral(first.userId);
  const token = sqlLiteral(first.tokenId);
  const ids = group.map((trip) => sqlLiteral(trip.requestId));
  if (user === undefined || token === undefined || ids.includes(undefined)) return undefined;
  return { user, token, withToken: first.tokenId > 0, inIds: `request_id IN (${ids.join(', ')})` };
}

/** A group of settles' summed extra and actual charges, and each row's charge as a CASE on its request id. */
export function settleSums(
  settles: readonly { requestId: string; delta: number; actual: number }[],
): { delta: string; actual: string; charged: string } | undefined {
  const delta = sqlSum(settles.map((s) => s.delta));
  const actual = sqlSum(settles.map((s) => s.actual));
  const charged = sqlCase(
    'request_id',
    settles.map((s) => s.requestId),
    settles.map((s) => s.actual),
  );
  return delta === undefined || actual === undefined || charged === undefined ? undefined : { delta, actual, charged };
}
