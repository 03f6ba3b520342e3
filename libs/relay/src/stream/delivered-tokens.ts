/**
 * Characters of delivered text counted exactly, per answer; past them the count is extrapolated. The
 * tokenizer reads about 6 MB/s on one core: 16 K characters are ~2.5 ms per stream, so 1,000 flooded
 * streams cost seconds, not minutes.
 */
const EXACT_CHARS = 16 * 1024;
/** The least tokens per character assumed past the exact part (about 4 characters per token in English). */
const MIN_TOKENS_PER_CHAR = 0.25;

/**
 * Completion tokens of a streamed answer counted locally (the provider sent no usage), fed piece by piece
 * as the text is delivered. The tokenizer's cost grows with the text, and a provider that floods a client
 * that stopped reading can deliver megabytes per stream before the socket buffers fill: counting all of it
 * exactly kept the process at 100 % CPU long after such clients left. The first EXACT_CHARS are counted
 * exactly; the rest at the ratio seen so far, never below MIN_TOKENS_PER_CHAR (a prefix that tokenizes
 * cheaply cannot make the rest free).
 */
export class DeliveredTokens {
  private tokens = 0;
  private chars = 0;
  private exactTokens = 0;
  private exactChars = 0;

  constructor(private readonly countText: (text: string) => number) {}

  add(text: string): void {
    if (!text) return;
    if (this.chars < EXACT_CHARS) {
      const counted = this.countText(text);
      this.tokens += counted;
      this.exactTokens += counted;
      this.exactChars += text.length;
    } else {
      const seen = this.exactTokens / this.exactChars;
      this.tokens += Math.ceil(
        seen >= MIN_TOKENS_PER_CHAR ? (text.length * this.exactTokens) / this.exactChars : text.length * MIN_TOKENS_PER_CHAR,
      );
    }
    this.chars += text.length;
  }

  get total(): number {
    return this.tokens;
  }
}
