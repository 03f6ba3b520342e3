const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const EQUALS = 0x3d;

/** Where a string value sits in a frame: its bytes between the quotes, still JSON-escaped. */
export interface RawString {
  start: number;
  end: number;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The index of the quote that closes the string whose content starts at `from`, or -1. */
function stringEnd(frame: Buffer, from: number): number {
  let at = frame.indexOf(QUOTE, from);
  while (at >= 0) {
    let slashes = 0;
    while (frame[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = frame.indexOf(QUOTE, at + 1);
  }
  return -1;
}

function hasEscape(frame: Buffer, raw: RawString): boolean {
  const at = frame.indexOf(BACKSLASH, raw.start);
  return at >= 0 && at < raw.end;
}

/** A string value's text, unescaped only when it holds an escape. */
export function stringAt(frame: Buffer, raw: RawString): string {
  if (!hasEscape(frame, raw)) return frame.toString('utf8', raw.start, raw.end);
  try {
    return JSON.parse(frame.toString('utf8', raw.start - 1, raw.end + 1)) as string;
  } catch {
    return '';
  }
}

/**
 * The string value of a top-level key of a JSON object frame, found without parsing the frame: nested objects
 * and arrays are stepped over, and a string is skipped with one byte search for its closing quote, so a frame
 * carrying a long base64 payload costs a few native searches. Undefined when the frame is not an object or the
 * key is absent or not a string. Keys written with escapes are compared unescaped.
 */
export function topLevelString(frame: Buffer, key: string): RawString | undefined {
  let i = 0;
  while (isSpace(frame[i])) i++;
  if (frame[i] !== OPEN_OBJECT) return undefined;
  let depth = 1;
  let expectKey = true;
  let matched = false;
  for (i++; i < frame.length; i++) {
    const byte = frame[i];
    if (byte === QUOTE) {
      const end = stringEnd(frame, i + 1);
      if (end < 0) return undefined;
      if (depth === 1) {
        const raw = { start: i + 1, end };
        if (expectKey) {
          matched = end - i - 1 === key.length || hasEscape(frame, raw) ? stringAt(frame, raw) === key : false;
          expectKey = false;
        } else if (matched) {
          return raw;
        }
      }
      i = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth++;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return undefined;
    } else if (byte === COMMA && depth === 1) {
      expectKey = true;
      matched = false;
    }
  }
  return undefined;
}

/** A frame's top-level `type`, or undefined when it has none (binary data, not JSON, not an object). */
export function eventType(frame: Buffer): string | undefined {
  const raw = topLevelString(frame, 'type');
  return raw ? stringAt(frame, raw) : undefined;
}

/** How many bytes a base64 string value decodes to, counted from its length (an escaped `/` counts once). */
export function base64Bytes(frame: Buffer, raw: RawString): number {
  let end = raw.end;
  while (end > raw.start && frame[end - 1] === EQUALS) end--;
  let chars = end - raw.start;
  if (hasEscape(frame, raw)) {
    for (let at = frame.indexOf(BACKSLASH, raw.start); at >= 0 && at < end; at = frame.indexOf(BACKSLASH, at + 2)) chars--;
  }
  return Math.floor((chars * 3) / 4);
}
