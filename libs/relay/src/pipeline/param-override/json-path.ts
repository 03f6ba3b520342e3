/**
 * The path syntax of new-api's param override (gjson/sjson's dotted paths): `a.b.0.c`, `\.` for a literal dot,
 * numeric segments index arrays, a negative one counts from the end (`messages.-1` is the last message) and,
 * when setting, `-1` appends; a missing container is made an array when the next segment is a number, and
 * `:2313` names an object key that looks like one. `#` reads an array's length.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

export class PathError extends Error {}

export function segmentsOf(path: string): string[] {
  if (!path) return [];
  return path.split(/(?<!\\)\./).map((s) => s.replace(/\\\./g, '.'));
}

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;
const INDEX = /^-?\d+$/;

/** An array index for `segment`, negative ones counted from the end; undefined when it is none. */
function indexIn(array: Json[], segment: string): number | undefined {
  if (!INDEX.test(segment)) return undefined;
  const n = Number(segment);
  return n < 0 ? array.length + n : n;
}

/** A `:`-prefixed segment is an object key even when it looks like a number (sjson). */
const objectKey = (segment: string) => (segment.startsWith(':') ? segment.slice(1) : segment);

const emptyFor = (next: string): Container => (INDEX.test(next) ? [] : {});

/** Sets an own property, even one named `__proto__` (an assignment would replace the object's prototype). */
export function putOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function child(container: Container, segment: string): { found: boolean; value?: Json } {
  if (Array.isArray(container)) {
    if (segment === '#') return { found: true, value: container.length };
    const i = indexIn(container, segment);
    return i !== undefined && i >= 0 && i < container.length ? { found: true, value: container[i] } : { found: false };
  }
  const key = objectKey(segment);
  return Object.hasOwn(container, key) ? { found: true, value: container[key] } : { found: false };
}

/** The value at `path` ('' is the root). */
export function getPath(root: Json, path: string): { found: boolean; value?: Json } {
  return getSegments(root, segmentsOf(path));
}

function getSegments(root: Json, segments: readonly string[]): { found: boolean; value?: Json } {
  let at: Json = root;
  for (const segment of segments) {
    if (!isContainer(at)) return { found: false };
    const next = child(at, segment);
    if (!next.found) return next;
    at = next.value!;
  }
  return { found: true, value: at };
}

/** Sets `value` at `path`, creating objects on the way; returns the root (a new one when path is ''). */
export function setPath(root: Json, path: string, value: Json): Json {
  const segments = segmentsOf(path);
  if (segments.length === 0) return value;
  if (!isContainer(root)) throw new PathError(`cannot set ${path}: the body is not a JSON object`);
  let at: Container = root;
  for (const [n, segment] of segments.entries()) {
    const last = n === segments.length - 1;
    if (Array.isArray(at)) {
      let i = indexIn(at, segment);
      if (i === undefined) throw new PathError(`cannot set ${path}: ${segment} is not an array index`);
      if (i < 0) i = segment === '-1' ? at.length : -1;
      if (i < 0) throw new PathError(`cannot set ${path}: index ${segment} is out of range`);
      while (at.length < i) at.push(null);
      if (last) {
        at[i] = value;
        return root;
      }
      if (!isContainer(at[i] ?? null)) at[i] = emptyFor(segments[n + 1]!);
      at = at[i] as Container;
    } else {
      const key = objectKey(segment);
      if (last) {
        putOwn(at, key, value);
        return root;
      }
      const existing = Object.hasOwn(at, key) ? at[key] : undefined;
      if (!isContainer(existing ?? null)) putOwn(at, key, emptyFor(segments[n + 1]!));
      at = at[key] as Container;
    }
  }
  return root;
}

/** Removes the value at `path`; nothing happens when it is not there. */
export function deletePath(root: Json, path: string): void {
  const segments = segmentsOf(path);
  const leaf = segments.pop();
  if (leaf === undefined) return;
  const parent = getSegments(root, segments);
  if (!parent.found || !isContainer(parent.value ?? null)) return;
  const container = parent.value as Container;
  if (Array.isArray(container)) {
    const i = indexIn(container, leaf);
    if (i !== undefined && i >= 0 && i < container.length) container.splice(i, 1);
  } else delete container[objectKey(leaf)];
}

/** gjson's String(): a string as is, null as '', anything else as its JSON text. */
export function textOf(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Go's `%v` of a configured value: strings as is, other values as their JSON text. */
export function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
