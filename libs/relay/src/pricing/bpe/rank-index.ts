const EMPTY_SLOT = -1;

/** FNV-1a: cheap, and spreads the short, similar byte strings of a BPE vocabulary well enough for linear probing. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}

/**
 * Byte string → rank for one encoding, held in three typed arrays (a few MB, none of it on the V8 heap):
 * the token bytes end to end, their offsets by rank, and an open-addressing table of ranks.
 * A Map of 200k strings, which is what gpt-tokenizer keeps, costs about ten times as much.
 */
export class RankIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** No slice longer than this can be a token, so long merge candidates are rejected without hashing. */
  readonly longestToken: number;

  /** `offsets[rank]..offsets[rank + 1]` are the bytes of `rank`; an empty range is a rank nothing can reach. */
  constructor(
    private readonly tokenBytes: Uint8Array,
    private readonly offsets: Uint32Array,
  ) {
    const ranks = offsets.length - 1;
    // At most half full, so that a miss (the common case while merging) ends after a probe or two.
    let size = 1;
    while (size < ranks * 2) size *= 2;
    this.slots = new Int32Array(size).fill(EMPTY_SLOT);
    this.mask = size - 1;
    let longest = 0;
    for (let rank = 0; rank < ranks; rank++) {
      const start = offsets[rank];
      const end = offsets[rank + 1];
      if (start === end) continue;
      longest = Math.max(longest, end - start);
      let slot = hashBytes(tokenBytes, start, end) & this.mask;
      while (this.slots[slot] !== EMPTY_SLOT) slot = (slot + 1) & this.mask;
      this.slots[slot] = rank;
    }
    this.longestToken = longest;
  }

  /** The rank of exactly `bytes[start..end)`, or -1. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length <= 0 || length > this.longestToken) return -1;
    let slot = hashBytes(bytes, start, end) & this.mask;
    for (;;) {
      const rank = this.slots[slot];
      if (rank === EMPTY_SLOT) return -1;
      if (this.holds(rank, bytes, start, length)) return rank;
      slot = (slot + 1) & this.mask;
    }
  }

  private holds(rank: number, bytes: Uint8Array, start: number, length: number): boolean {
    const tokenStart = this.offsets[rank];
    if (this.offsets[rank + 1] - tokenStart !== length) return false;
    for (let i = 0; i < length; i++) if (this.tokenBytes[tokenStart + i] !== bytes[start + i]) return false;
    return true;
  }
}
