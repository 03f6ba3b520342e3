import { BytePairMerger } from './byte-pair-merge.js';
import { RankIndex } from './rank-index.js';
import type { RankTables } from './rank-table-build.js';
import { Utf8Buffer } from './utf8.js';

/**
 * Counts tokens the way gpt-tokenizer's `countTokens(text, { disallowedSpecial: new Set() })` does, without
 * producing them: split with the encoding's regex, then each piece is one token if it is one as a whole,
 * else as many as byte-pair merging leaves. Special-token lookalikes are plain text.
 */
export class BpeCounter {
  private readonly index: RankIndex;
  private readonly merger: BytePairMerger;
  private readonly utf8 = new Utf8Buffer();

  constructor(private readonly tables: RankTables) {
    this.index = new RankIndex(tables.tokenBytes, tables.offsets);
    this.merger = new BytePairMerger(this.index);
  }

  count(text: string): number {
    let total = 0;
    for (const [piece] of text.matchAll(this.tables.splitRegex)) total += this.countPiece(piece);
    return total;
  }

  private countPiece(piece: string): number {
    // Every ASCII character is a token of its own in both encodings.
    if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
    const utf8 = this.utf8;
    utf8.write(piece);
    // gpt-tokenizer matches whole pieces by their JS string, which a lone surrogate never equals.
    if (utf8.wellFormed && this.index.rankOf(utf8.bytes, 0, utf8.length) !== -1) return 1;
    return this.merger.countParts(utf8.bytes, utf8.length);
  }
}
