import { describe, expect, it } from 'vitest';
import { groupLiterals, groupsInTripOrder, settleSums } from './combined-batch.js';

const move = (kind: 'reserve' | 'settle' | 'release', userId: number, tokenId: number, requestId: string) => ({
  kind,
  userId,
  tokenId,
  requestId,
});

describe('the one-trip planners’ shared pieces', () => {
  it('groups by kind, user and token, refunds and settles before reserves, otherwise in arrival order', () => {
    const trips = [
      move('reserve', 1, 2, 'a'),
      move('settle', 1, 2, 'b'),
      move('reserve', 1, 2, 'c'),
      move('release', 3, 0, 'd'),
      move('settle', 1, 2, 'e'),
    ];
    expect(groupsInTripOrder(trips).map((group) => group.map((t) => t.requestId))).toEqual([['b', 'e'], ['d'], ['a', 'c']]);
  });

  it('gives a group’s literals, and nothing for an id that would need escaping', () => {
    expect(groupLiterals([move('settle', 1, 0, 'r-1'), move('settle', 1, 0, 'r-2')])).toEqual({
      user: '1',
      token: '0',
      withToken: false,
      inIds: "request_id IN ('r-1', 'r-2')",
    });
    expect(groupLiterals([move('settle', 1, 2, "x' OR 1=1 --")])).toBeUndefined();
  });

  it('sums settles exactly, and refuses a charge that is not a safe integer', () => {
    expect(
      settleSums([
        { requestId: 'a', delta: -5, actual: 10 },
        { requestId: 'b', delta: 3, actual: 20 },
      ]),
    ).toEqual({ delta: '(-2)', actual: '30', charged: "CASE request_id WHEN 'a' THEN 10 WHEN 'b' THEN 20 END" });
    expect(settleSums([{ requestId: 'a', delta: 0.5, actual: 1 }])).toBeUndefined();
  });
});
