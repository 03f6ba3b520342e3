import type { GroundingFacts, Usage } from '../../stream/usage.js';
import type { Json } from '../types.js';

/**
 * The Google Search (or Maps) grounding of a Gemini answer, billed per call at settlement (tool-prices.ts,
 * google_search and google_maps, as new-api). Streams repeat a candidate's metadata cumulatively, so each event is a snapshot:
 * a query counts as often as the most any one event listed it, never summed across events.
 */
export class GroundingTally {
  private readonly queries = new Map<string, number>();
  private web = false;
  private image = false;
  private maps = false;

  add(native: Json): void {
    const snapshot = new Map<string, number>();
    for (const candidate of Array.isArray(native.candidates) ? native.candidates : []) {
      const metadata = candidate?.groundingMetadata;
      if (typeof metadata !== 'object' || metadata === null) continue;
      for (const [kind, list] of [
        ['web', metadata.webSearchQueries],
        ['image', metadata.imageSearchQueries],
      ] as const) {
        for (const query of Array.isArray(list) ? list : []) {
          const text = typeof query === 'string' ? query.trim() : '';
          if (!text) continue;
          const key = `${candidate.index ?? 0}\u0000${kind}\u0000${text}`;
          snapshot.set(key, (snapshot.get(key) ?? 0) + 1);
        }
      }
      for (const chunk of Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : []) {
        this.web ||= Boolean(chunk?.web);
        this.image ||= Boolean(chunk?.image);
        this.maps ||= Boolean(chunk?.maps);
      }
    }
    for (const [key, n] of snapshot) if (n > (this.queries.get(key) ?? 0)) this.queries.set(key, n);
  }

  /** The grounding of the answer, undefined when it was not grounded. */
  facts(): GroundingFacts | undefined {
    let queries = 0;
    for (const n of this.queries.values()) queries += n;
    if (!queries && !this.web && !this.image && !this.maps) return undefined;
    return { queries, web: this.web, image: this.image, maps: this.maps };
  }

  /** The usage with the grounding facts added. */
  withFacts(usage: Usage | undefined): Usage | undefined {
    const grounding = usage && this.facts();
    return grounding ? { ...usage, grounding } : usage;
  }
}
