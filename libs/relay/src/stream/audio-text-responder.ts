import type { ServerResponse } from 'node:http';
import { parseJsonObject } from '../providers/sse-events.js';
import { readUsage, type Usage } from './usage.js';

/** new-api bills transcription and translation time as 1000 prompt tokens per minute of audio. */
export const TOKENS_PER_AUDIO_MINUTE = 1000;

/**
 * A transcription or translation answer (JSON, verbose JSON, or plain text / SRT / VTT), sent with the
 * provider's content type. Usage, in order: OpenAI's `usage` of type duration (seconds of audio) or of
 * tokens (gpt-4o-transcribe), verbose JSON's `duration`, else a local count of the transcript.
 */
export function relayAudioText(
  text: string,
  res: ServerResponse,
  contentType: string,
  countText: (text: string) => number,
): { usage: Usage; local: boolean } | { errorText: string } {
  const parsed = parseJsonObject(text);
  if (parsed?.error && parsed.text === undefined) return { errorText: text };
  let usage: Usage | undefined;
  let seconds: number | undefined;
  if (parsed?.usage?.type === 'duration') seconds = Number(parsed.usage.seconds);
  else usage = readUsage(parsed?.usage);
  if (!usage && seconds === undefined && typeof parsed?.duration === 'number') seconds = parsed.duration;
  let local = false;
  if (!usage && seconds !== undefined && Number.isFinite(seconds) && seconds > 0) {
    usage = { promptTokens: Math.ceil((seconds * TOKENS_PER_AUDIO_MINUTE) / 60), completionTokens: 0, cachedTokens: 0 };
  }
  if (!usage) {
    local = true;
    usage = { promptTokens: 0, completionTokens: countText(typeof parsed?.text === 'string' ? parsed.text : text), cachedTokens: 0 };
  }
  res.writeHead(200, { 'Content-Type': contentType || 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return { usage, local };
}
