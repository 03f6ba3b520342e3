/** The console's response envelope, as new-api's frontend reads it. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

const RAW = Symbol('raw-response');

/** A body the envelope interceptor must send as it is (e.g. `/api/pricing` has extra top-level keys). */
export interface RawResponse {
  [RAW]: true;
  body: unknown;
}

export function raw(body: unknown): RawResponse {
  return { [RAW]: true, body };
}

export function isRaw(value: unknown): value is RawResponse {
  return typeof value === 'object' && value !== null && RAW in value;
}

const MESSAGE = Symbol('with-message');

/** Success with a message for the toast, and optional data. */
export interface WithMessage {
  [MESSAGE]: true;
  message: string;
  data: unknown;
}

export function withMessage(message: string, data?: unknown): WithMessage {
  return { [MESSAGE]: true, message, data };
}

export function isWithMessage(value: unknown): value is WithMessage {
  return typeof value === 'object' && value !== null && MESSAGE in value;
}

const JSON_TEXT = Symbol('json-text');

/**
 * Data already rendered as JSON text (e.g. by the database): the envelope is written around it as text, so
 * an answer of a hundred thousand rows is not turned into objects only to be serialised again.
 */
export interface JsonText {
  [JSON_TEXT]: true;
  text: string;
  /**
   * A JSON array given as runs of its elements (each run comma-separated objects, no brackets): the answer is
   * written run by run (jsonArray), never joined into one string of tens of MB. A run may be UTF-8 bytes (a
   * text stored by the database, read as a BLOB): it goes to the socket without being decoded and encoded again.
   */
  parts?: readonly JsonRun[];
}

/** One run of array elements: text, or the same text as UTF-8 bytes. */
export type JsonRun = string | Uint8Array;

export function jsonText(text: string): JsonText {
  return { [JSON_TEXT]: true, text };
}

/** The JSON array whose elements are the runs `parts` (empty runs left out by the caller). */
export function jsonArray(parts: readonly JsonRun[]): JsonText {
  return {
    [JSON_TEXT]: true,
    parts,
    get text() {
      return `[${parts.map((part) => (typeof part === 'string' ? part : Buffer.from(part).toString('utf8'))).join(',')}]`;
    },
  };
}

export function isJsonText(value: unknown): value is JsonText {
  return typeof value === 'object' && value !== null && JSON_TEXT in value;
}
