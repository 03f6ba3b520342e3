import { OverrideConfigError } from './conditions.js';
import { formatValue } from './json-path.js';

/**
 * The headers an override works on: the client's request headers (read-only) and the header override the
 * upstream call will send (the channel's `header_override` to start with), both keyed by lower-case name.
 */
export interface HeaderState {
  request: Record<string, string>;
  override: Record<string, string>;
}

const nameOf = (name: string) => name.trim().toLowerCase();

const split = (raw: string) =>
  raw
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);

const unique = (items: string[]) => [...new Set(items)];

/** A header's current value: the override's, else the client's. */
export function headerValue(headers: HeaderState, name: string): string | undefined {
  const key = nameOf(name);
  for (const source of [headers.override, headers.request]) {
    const value = Object.hasOwn(source, key) ? String(source[key]).trim() : undefined;
    if (value) return value;
  }
  return undefined;
}

function replacementTokens(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return split(value);
  if (Array.isArray(value)) return unique(value.flatMap(replacementTokens));
  if (typeof value === 'object') throw new OverrideConfigError('header replacement value must be string, array or null');
  const token = String(value).trim();
  return token ? [token] : [];
}

/**
 * A `set_header` value: text (empty removes the header), or a mapping applied to each comma-separated token of
 * the header's current value (`"*"` for any other token; a token mapped to null or [] is dropped).
 */
function resolvedValue(headers: HeaderState, name: string, value: unknown): string | undefined {
  if (value === null || value === undefined) throw new OverrideConfigError('header value is required');
  if (typeof value === 'object' && !Array.isArray(value)) {
    const mapping = value as Record<string, unknown>;
    if (Object.keys(mapping).length === 0) throw new OverrideConfigError('header value mapping cannot be empty');
    const source = headerValue(headers, name);
    if (!source) return undefined;
    const tokens = split(source).flatMap((token) => {
      if (Object.hasOwn(mapping, token)) return replacementTokens(mapping[token]);
      if (Object.hasOwn(mapping, '*')) return replacementTokens(mapping['*']);
      return [token];
    });
    const result = unique(tokens);
    return result.length > 0 ? result.join(',') : undefined;
  }
  const text = formatValue(value).trim();
  return text || undefined;
}

export function setHeader(headers: HeaderState, name: string, value: unknown, keepOrigin: boolean): void {
  const key = nameOf(name);
  if (!key) throw new OverrideConfigError('header name is required');
  if (keepOrigin && Object.hasOwn(headers.override, key) && String(headers.override[key]).trim()) return;
  const resolved = resolvedValue(headers, key, value);
  if (resolved === undefined) delete headers.override[key];
  else headers.override[key] = resolved;
}

export function deleteHeader(headers: HeaderState, name: string): void {
  const key = nameOf(name);
  if (!key) throw new OverrideConfigError('header name is required');
  delete headers.override[key];
}

/** Copies a header's value to another name; a missing source does nothing. */
export function copyHeader(headers: HeaderState, from: string, to: string, keepOrigin: boolean): boolean {
  if (!nameOf(from) || !nameOf(to)) throw new OverrideConfigError('copy_header from/to is required');
  const value = headerValue(headers, from);
  if (value === undefined) return false;
  setHeader(headers, to, value, keepOrigin);
  return true;
}

export function moveHeader(headers: HeaderState, from: string, to: string, keepOrigin: boolean): void {
  if (!copyHeader(headers, from, to, keepOrigin)) return;
  if (nameOf(from) !== nameOf(to)) deleteHeader(headers, from);
}

/** The header names of a `pass_headers` value: a comma list (or JSON text), a list, or {headers|names|header}. */
export function passHeaderNames(value: unknown): string[] {
  const invalid = () => new OverrideConfigError('pass_headers value is invalid');
  if (value === null || value === undefined) throw new OverrideConfigError('pass_headers value is required');
  if (typeof value === 'string') {
    const text = value.trim();
    if (!text) throw new OverrideConfigError('pass_headers value is required');
    if (text.startsWith('[') || text.startsWith('{')) {
      try {
        return passHeaderNames(JSON.parse(text));
      } catch (error) {
        if (error instanceof OverrideConfigError) throw error;
      }
    }
    const names = unique(text.split(',').map(nameOf).filter(Boolean));
    if (names.length === 0) throw invalid();
    return names;
  }
  if (Array.isArray(value)) {
    const names = unique(value.map((item) => nameOf(formatValue(item))).filter(Boolean));
    if (names.length === 0) throw invalid();
    return names;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const names = unique(
      ['headers', 'names', 'header'].flatMap((field) => {
        if (!(field in record)) return [];
        try {
          return passHeaderNames(record[field]);
        } catch {
          return [];
        }
      }),
    );
    if (names.length === 0) throw invalid();
    return names;
  }
  throw new OverrideConfigError('pass_headers value must be string, array or object');
}

/** The override the upstream call sends: names lower-cased, values trimmed, empty ones left out. */
export function finalHeaders(headers: HeaderState): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(headers.override)) {
    const key = nameOf(name);
    const text = String(value).trim();
    if (key && text) out[key] = text;
  }
  return out;
}
