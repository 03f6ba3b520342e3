import type { ServerResponse } from 'node:http';
import { findUsageInJson, toOpenAiUsage, type Usage } from './usage.js';

export interface JsonOutcome {
  usage: Usage;
  /** The usage was estimated here (upstream sent none) and written into the answer. */
  local: boolean;
}

/** A 200 whose body is an error object and no answer: nothing was written, the caller treats it as a failure. */
export interface JsonErrorOutcome {
  errorText: string;
}

/**
 * A non-stream answer. Usage is read from the `usage` object alone (the answer is not parsed whole);
 * when upstream sent none, it is estimated from the prompt count and the answer's text and written
 * into the body, as new-api does.
 */
export function relayJson(
  text: string,
  res: ServerResponse,
  promptTokens: number,
  countText: (text: string) => number,
): JsonOutcome | JsonErrorOutcome {
  const found = findUsageInJson(text);
  let outcome: JsonOutcome;
  let body = text;
  if (found) outcome = { usage: found, local: false };
  else {
    let parsed: Record<string, unknown> | undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) parsed = value as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    if (parsed?.error && parsed.choices === undefined && parsed.data === undefined) return { errorText: text };
    const usage: Usage = { promptTokens, completionTokens: parsed ? countText(answerText(parsed)) : 0, cachedTokens: 0 };
    outcome = { usage, local: true };
    if (parsed) {
      parsed.usage = toOpenAiUsage(usage);
      body = JSON.stringify(parsed);
    }
  }
  sendAnswer(res, body);
  return outcome;
}

/** A whole 200 JSON answer. */
export function sendAnswer(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function answerText(body: Record<string, unknown>): string {
  const choices = body.choices;
  if (!Array.isArray(choices)) return '';
  let text = '';
  for (const choice of choices as Record<string, any>[]) {
    if (typeof choice?.text === 'string') text += choice.text;
    const message = choice?.message;
    if (typeof message?.content === 'string') text += message.content;
    if (typeof message?.reasoning_content === 'string') text += message.reasoning_content;
    if (Array.isArray(message?.tool_calls)) {
      for (const call of message.tool_calls) {
        if (typeof call?.function?.name === 'string') text += call.function.name;
        if (typeof call?.function?.arguments === 'string') text += call.function.arguments;
      }
    }
  }
  return text;
}
