import { expect } from 'vitest';
import { REQUEST_ID_HEADER } from '@gw/core';

/** A relay answer as the tests hold it: the api-client's response, or a fetch Response's headers and parsed body. */
export interface RelayAnswer<T = any> {
  /** Optional only because the SDKs' errors type it so; an answer without headers fails the check. */
  headers: Headers | undefined;
  body: T;
}

const SUFFIX = /^([\s\S]*) \(request id: ([^()]+)\)$/;

/**
 * new-api ends every relay error message with ` (request id: <id>)`: checks that the id is the answer's
 * X-Oneapi-Request-Id and returns the message before it, to be compared as strictly as ever.
 */
export function withoutRequestId(headers: Headers | undefined, message: unknown): string {
  const text = String(message);
  const match = SUFFIX.exec(text);
  expect(match, `no request id at the end of ${JSON.stringify(text)}`).not.toBeNull();
  const id = headers?.get(REQUEST_ID_HEADER);
  expect(id, 'the answer has no X-Oneapi-Request-Id').toBeTruthy();
  expect(match![2]).toBe(id);
  return match![1]!;
}

/** `error.message` of a relay error answer (OpenAI, Anthropic or Gemini shape), without its request id. */
export function relayMessage(answer: RelayAnswer): string {
  return withoutRequestId(answer.headers, answer.body?.error?.message);
}

/** The body of a relay error answer with `error.message` freed of its request id, for whole-body comparisons. */
export function relayError<T = any>(answer: RelayAnswer<T>): T {
  const body = answer.body as { error?: { message?: unknown } };
  return { ...body, error: { ...body.error, message: relayMessage(answer) } } as T;
}
