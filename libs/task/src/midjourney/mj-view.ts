import type { MidjourneyEntity } from './midjourney.entity.js';

function parseJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The image address shown to clients: through our server when MjForwardUrlEnabled (the proxy's URL stays hidden). */
export function shownImageUrl(row: MidjourneyEntity, forward: { enabled: boolean; serverAddress: string }, nowMs = Date.now()): string {
  if (!row.imageUrl || !forward.enabled) return row.imageUrl ?? '';
  const url = `${forward.serverAddress.replace(/\/+$/, '')}/mj/image/${encodeURIComponent(row.mjId ?? '')}`;
  // Still-changing previews must not be cached by the client.
  return row.status === 'SUCCESS' ? url : `${url}?rand=${nowMs}`;
}

/** A task as Midjourney-proxy clients read it (GET /mj/task/:id/fetch, list-by-condition). */
export function toMjDto(row: MidjourneyEntity, forward: { enabled: boolean; serverAddress: string }): Record<string, unknown> {
  const dto: Record<string, unknown> = {
    id: row.mjId ?? '',
    action: row.action ?? '',
    customId: '',
    botType: '',
    prompt: row.prompt ?? '',
    promptEn: row.promptEn ?? '',
    description: row.description ?? '',
    state: row.state ?? '',
    submitTime: row.submitTime,
    startTime: row.startTime,
    finishTime: row.finishTime,
    imageUrl: shownImageUrl(row, forward),
    videoUrl: row.videoUrl ?? '',
    videoUrls: parseJson(row.videoUrls) ?? null,
    status: row.status ?? '',
    progress: row.progress ?? '',
    failReason: row.failReason ?? '',
    buttons: parseJson(row.buttons) ?? null,
    maskBase64: '',
    properties: parseJson(row.properties) ?? null,
  };
  return dto;
}

/** A row of the console's drawing log (snake_case as new-api's JSON; token and billing channel stay hidden). */
export function toMjListItem(row: MidjourneyEntity, forward: { enabled: boolean; serverAddress: string }): Record<string, unknown> {
  return {
    id: row.id,
    code: row.code,
    user_id: row.userId,
    action: row.action ?? '',
    mj_id: row.mjId ?? '',
    prompt: row.prompt ?? '',
    prompt_en: row.promptEn ?? '',
    description: row.description ?? '',
    state: row.state ?? '',
    submit_time: row.submitTime,
    start_time: row.startTime,
    finish_time: row.finishTime,
    image_url: shownImageUrl(row, forward),
    video_url: row.videoUrl ?? '',
    video_urls: row.videoUrls ?? '',
    status: row.status ?? '',
    progress: row.progress ?? '',
    fail_reason: row.failReason ?? '',
    channel_id: row.channelId,
    quota: row.quota,
    buttons: row.buttons ?? '',
    properties: row.properties ?? '',
  };
}
