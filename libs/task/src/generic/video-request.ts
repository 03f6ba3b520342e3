import type { TaskUsage } from '@gw/contracts';
import { TaskRelayError } from '../shared/task-error.js';

/**
 * The unified video submit new-api reads on `/v1/video/generations` (and each provider's own routes that
 * accept it): a prompt and/or images, a length in seconds, a size, and free `metadata` that a provider
 * copies over its own request fields.
 */
export interface VideoRequest {
  model: string;
  prompt: string;
  images: string[];
  /** Seconds; undefined when the caller left it to the provider's default. */
  duration?: number;
  size: string;
  metadata: Record<string, unknown>;
  raw: Record<string, unknown>;
}

/** Reads and checks a unified video body; `defaultModel` stands in when the body names none. */
export function readVideoRequest(body: unknown, defaultModel: string): VideoRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new TaskRelayError('the request body must be a JSON object', 400, 'invalid_request');
  const raw = body as Record<string, unknown>;
  const text = (key: string) => (typeof raw[key] === 'string' ? (raw[key] as string).trim() : '');
  const images = [
    ...(Array.isArray(raw.images) ? raw.images.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : []),
    ...(text('image') ? [text('image')] : []),
    ...(text('input_reference') ? [text('input_reference')] : []),
  ];
  const prompt = text('prompt');
  if (!prompt && images.length === 0) throw new TaskRelayError('prompt or image is required', 400, 'invalid_request');
  let duration: number | undefined;
  const seconds = raw.duration ?? raw.seconds;
  if (seconds !== undefined && seconds !== null && seconds !== '') {
    duration = Number(seconds);
    if (!Number.isFinite(duration) || duration <= 0 || duration > 600)
      throw new TaskRelayError('duration must be a number of seconds between 1 and 600', 400, 'invalid_request');
  }
  const metadata =
    raw.metadata && typeof raw.metadata === 'object' && !Array.isArray(raw.metadata) ? (raw.metadata as Record<string, unknown>) : {};
  return { model: text('model') || defaultModel, prompt, images, duration, size: text('size'), metadata, raw };
}

/**
 * A video's facts for task expressions (u("seconds"), u("resolution")): the seconds asked for and the resolution
 * as the provider names it, in lower case (`1080P` → `1080p`, `2160p` → `4k`), else the shorter side of a `WxH`
 * size (`1280x720` → `720p`), else `fallback`.
 */
export function videoUsage(seconds: number | undefined, resolution: unknown, size = '', fallback?: string): TaskUsage {
  const usage: Record<string, number | string> = {};
  if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) usage.seconds = seconds;
  const named = typeof resolution === 'string' && resolution.trim() ? resolution.trim().toLowerCase() : undefined;
  const sides = /^(\d+)\s*[x*×]\s*(\d+)$/i.exec(size.trim());
  const fromSize = sides ? `${Math.min(Number(sides[1]), Number(sides[2]))}p` : undefined;
  const value = named ?? fromSize ?? fallback;
  if (value) usage.resolution = value === '2160p' ? '4k' : value;
  return usage;
}

/** The OpenAI-video answer a submit gets while the provider works (new-api answers every video family so). */
export function queuedVideo(publicId: string, model: string): Record<string, unknown> {
  return {
    id: publicId,
    task_id: publicId,
    object: 'video',
    model,
    status: 'queued',
    progress: 0,
    created_at: Math.floor(Date.now() / 1000),
  };
}

/** A provider's message out of its error body, or the HTTP status when it has none. */
export function upstreamMessage(body: unknown, status: number, ...keys: string[]): string {
  let value: unknown = body;
  for (const key of keys) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value ? value : `upstream answered ${status}`;
}
