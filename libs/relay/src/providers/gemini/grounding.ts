import type { ToolCalls, Usage } from '../../stream/usage.js';
import type { Json } from '../types.js';

/** Models Google bills per search query of a grounded prompt; older ones are billed once per grounded prompt. */
function billsPerQuery(model: string): boolean {
  return (
    model.startsWith('gemini-3') ||
    model === 'gemini-flash-latest' ||
    model === 'gemini-flash-lite-latest' ||
    model === 'gemini-pro-latest' ||
    model.startsWith('gemini-robotics-er-1.6')
  );
}

/**
 * The Google Search (or Maps) grounding of a Gemini answer, billed per call as new-api bills it (tool prices
 * google_search, google_maps). Streams repeat a candidate's metadata cumulatively, so each event is a snapshot:
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

  /** The billed grounding calls of the answer for this model, undefined when it was not grounded. */
  toolCalls(model: string): ToolCalls | undefined {
    let queries = 0;
    for (const n of this.queries.values()) queries += n;
    const sources = this.web || this.image || this.maps;
    const mapsOnly = this.maps && !this.web && !this.image;
    if (billsPerQuery(model)) {
      // A grounding source proves one search even when the query list was left out.
      const calls = queries || (sources ? 1 : 0);
      if (!calls) return undefined;
      return mapsOnly ? { google_maps: calls } : { google_search: calls };
    }
    if (this.maps) return { google_maps: 1 };
    return queries > 0 || sources ? { google_search: 1 } : undefined;
  }

  /** The usage with the grounding calls added. */
  withCalls(usage: Usage | undefined, model: string): Usage | undefined {
    const calls = usage && this.toolCalls(model);
    return calls ? { ...usage, toolCalls: { ...usage.toolCalls, ...calls } } : usage;
  }
}
