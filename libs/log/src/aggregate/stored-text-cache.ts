/**
 * The dashboard's stored hour texts kept in memory, least recently used first out, within a byte budget. A
 * stored text never changes under its generation (a new text needs a new generation: see
 * SeriesTextRepository), so an entry is used only when the generation just read from the database is the one it
 * was read under: every instance still answers the current sums, and a repeated week of per-user hours (~28 MB)
 * is neither read from the database again nor left as garbage for the collector on every call.
 */
export class StoredTextCache {
  private readonly entries = new Map<string, { gen: number; body: Buffer }>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  get size(): number {
    return this.bytes;
  }

  /** The text of this hour under exactly this generation, if kept. */
  get(dim: string, hour: number, gen: number): Buffer | undefined {
    const key = `${dim}:${hour}`;
    const entry = this.entries.get(key);
    if (!entry || entry.gen !== gen) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  set(dim: string, hour: number, gen: number, body: Buffer): void {
    const key = `${dim}:${hour}`;
    this.drop(key);
    if (body.length > this.budgetBytes) return;
    this.entries.set(key, { gen, body });
    this.bytes += body.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
