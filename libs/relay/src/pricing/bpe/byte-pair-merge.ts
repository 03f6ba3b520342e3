import type { RankIndex } from './rank-index.js';
import { isValidUtf8 } from './utf8.js';

const NO_RANK = -1;
/** Heap keys are `rank * 2^32 + position`: lowest rank first and, among equal ranks, the leftmost pair. */
const POSITION_SPAN = 2 ** 32;
const BYTE_ORDER_MARK_LENGTH = 3;

/**
 * The rank gpt-tokenizer finds for a merge candidate. It decodes valid UTF-8 with a TextDecoder that drops a
 * leading byte order mark, so EF BB BF + "using" is looked up as "using" (and a lone EF BB BF as "", which is no
 * token). Real tiktoken would not do this; we copy it because our counts must equal gpt-tokenizer's.
 */
function mergeRank(index: RankIndex, bytes: Uint8Array, start: number, end: number): number {
  if (end - start > index.longestToken + BYTE_ORDER_MARK_LENGTH) return NO_RANK;
  const startsWithByteOrderMark = bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf;
  if (startsWithByteOrderMark && end - start >= BYTE_ORDER_MARK_LENGTH && isValidUtf8(bytes, start, end)) {
    return index.rankOf(bytes, start + BYTE_ORDER_MARK_LENGTH, end);
  }
  return index.rankOf(bytes, start, end);
}

/**
 * Byte-level BPE that only counts: repeatedly merge the adjacent pair whose bytes have the lowest rank
 * (leftmost on a tie), until no adjacent pair is a token. The result is the number of parts left.
 *
 * gpt-tokenizer rescans every pair after each merge, which is quadratic in the piece's length (about 60 ms for
 * a 10k-letter word). Here the parts are a linked list over byte positions and the candidates sit in a binary
 * heap, so a piece costs O(n log n). A stale heap entry is recognised because its rank no longer equals its
 * part's current pair rank (a part's pair only ever grows, so its rank never returns to an old value).
 * The arrays are kept between calls and only grow.
 */
export class BytePairMerger {
  private next = new Int32Array(0);
  private previous = new Int32Array(0);
  private pairRank = new Int32Array(0);
  private heap = new Float64Array(0);
  private heapSize = 0;

  constructor(private readonly index: RankIndex) {}

  countParts(bytes: Uint8Array, length: number): number {
    if (length < 2) return length;
    this.reserve(length);
    const { next, previous, pairRank, index } = this;
    this.heapSize = 0;
    for (let i = 0; i < length; i++) {
      next[i] = i + 1;
      previous[i] = i - 1;
      pairRank[i] = i + 2 <= length ? mergeRank(index, bytes, i, i + 2) : NO_RANK;
      if (pairRank[i] !== NO_RANK) this.push(pairRank[i], i);
    }
    let parts = length;
    while (this.heapSize > 0) {
      const key = this.pop();
      const rank = Math.floor(key / POSITION_SPAN);
      const left = key - rank * POSITION_SPAN;
      if (pairRank[left] !== rank) continue;
      // Part `left` absorbs the part after it.
      const absorbed = next[left];
      const after = next[absorbed];
      next[left] = after;
      if (after < length) previous[after] = left;
      pairRank[absorbed] = NO_RANK;
      parts--;
      pairRank[left] = after < length ? mergeRank(index, bytes, left, next[after]) : NO_RANK;
      if (pairRank[left] !== NO_RANK) this.push(pairRank[left], left);
      const before = previous[left];
      if (before >= 0) {
        pairRank[before] = mergeRank(index, bytes, before, after);
        if (pairRank[before] !== NO_RANK) this.push(pairRank[before], before);
      }
    }
    return parts;
  }

  private reserve(length: number): void {
    if (this.next.length >= length) return;
    this.next = new Int32Array(length);
    this.previous = new Int32Array(length);
    this.pairRank = new Int32Array(length);
    // The first pass pushes at most length - 1 pairs and each of the at most length - 1 merges two more.
    this.heap = new Float64Array(length * 3);
  }

  private push(rank: number, position: number): void {
    const heap = this.heap;
    const key = rank * POSITION_SPAN + position;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= key) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = key;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0];
    const last = heap[--this.heapSize];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.heapSize) break;
      if (child + 1 < this.heapSize && heap[child + 1] < heap[child]) child++;
      if (heap[child] >= last) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
