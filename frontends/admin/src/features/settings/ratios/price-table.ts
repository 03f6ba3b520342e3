/**
 * The visual per-model price table (spec 000 §3 "Model pricing row", spec 001 §5 unset-model editor):
 * rows are built from the ModelPrice, ModelRatio and CompletionRatio maps and written back to them.
 */
export type PriceMode = 'ratio' | 'price' | 'request';

export interface PriceRow {
  name: string;
  /** Per request: fixed price in USD. */
  price: string;
  /** Per token: the model ratio (or, in 'price' mode, derived from the USD price per 1M input tokens). */
  ratio: string;
  completionRatio: string;
}

export interface RatioMaps {
  ModelPrice: Record<string, number>;
  ModelRatio: Record<string, number>;
  CompletionRatio: Record<string, number>;
}

const parseMap = (text: string | undefined): Record<string, number> => {
  try {
    const value = JSON.parse(text ?? '{}') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, number>) : {};
  } catch {
    return {};
  }
};

export function readMaps(options: Record<string, string>): RatioMaps {
  return {
    ModelPrice: parseMap(options.ModelPrice),
    ModelRatio: parseMap(options.ModelRatio),
    CompletionRatio: parseMap(options.CompletionRatio),
  };
}

export function toRows(maps: RatioMaps): PriceRow[] {
  const names = [
    ...new Set([...Object.keys(maps.ModelPrice), ...Object.keys(maps.ModelRatio), ...Object.keys(maps.CompletionRatio)]),
  ].sort();
  const text = (value: number | undefined) => (value === undefined ? '' : String(value));
  return names.map((name) => ({
    name,
    price: text(maps.ModelPrice[name]),
    ratio: maps.ModelPrice[name] !== undefined ? '' : text(maps.ModelRatio[name]),
    completionRatio: maps.ModelPrice[name] !== undefined ? '' : text(maps.CompletionRatio[name]),
  }));
}

export const isNumeric = (value: string) => value.trim() === '' || (/^\d*\.?\d+$/.test(value.trim()) && Number.isFinite(Number(value)));

/** The message key when a row cannot be saved as it is, else null. */
export function rowProblem(row: PriceRow): 'number' | 'missing' | null {
  if (![row.price, row.ratio, row.completionRatio].every(isNumeric)) return 'number';
  if (row.price.trim() === '' && row.ratio.trim() === '') return 'missing';
  return null;
}

/** A fixed price makes the ratios inapplicable: they are cleared (spec 001 §5). */
export function withPrice(row: PriceRow, price: string): PriceRow {
  return price.trim() === '' ? { ...row, price } : { ...row, price, ratio: '', completionRatio: '' };
}

/** Price per 1M input tokens in USD ↔ model ratio: ratio = price / 2 (spec 000 §9). */
export const ratioFromTokenPrice = (usdPerMillion: number) => usdPerMillion / 2;
export const tokenPriceFromRatio = (ratio: number) => ratio * 2;

export function toMaps(rows: PriceRow[]): RatioMaps {
  const maps: RatioMaps = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {} };
  for (const row of rows) {
    if (row.price.trim() !== '') {
      maps.ModelPrice[row.name] = Number(row.price);
      continue;
    }
    if (row.ratio.trim() !== '') maps.ModelRatio[row.name] = Number(row.ratio);
    if (row.completionRatio.trim() !== '') maps.CompletionRatio[row.name] = Number(row.completionRatio);
  }
  return maps;
}

/** Enabled models that have neither a price nor a ratio: requests for them are refused until one is set. */
export function modelsWithoutRatio(enabled: string[], maps: RatioMaps): string[] {
  return [...new Set(enabled)].filter((name) => maps.ModelPrice[name] === undefined && maps.ModelRatio[name] === undefined).sort();
}
