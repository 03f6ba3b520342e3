import { api, apiHeaders } from '@console/kit';

/** One event of a streamed pull: Ollama's progress line, the final message, or an error. */
export interface PullEvent {
  status?: string;
  total?: number;
  completed?: number;
  message?: string;
  error?: string;
}

/** The channel page's Ollama model management (`/api/channel/ollama/*`, admin only). */
export const ollamaApi = {
  version: (channelId: number) => api.get<{ version: string }>(`/api/channel/ollama/version/${channelId}`, { quiet: true }),
  remove: (channelId: number, model: string) =>
    api.delete<null>('/api/channel/ollama/delete', { body: { channel_id: channelId, model_name: model } }),
  /** Pulls with progress; resolves with the server's final message, rejects with Ollama's error. */
  async pull(channelId: number, model: string, onProgress: (event: PullEvent) => void, signal?: AbortSignal): Promise<string> {
    const response = await fetch('/api/channel/ollama/pull/stream', {
      method: 'POST',
      headers: { ...apiHeaders(), 'Content-Type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ channel_id: channelId, model_name: model }),
      signal,
    });
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
      const envelope = (await response.json().catch(() => null)) as { message?: string } | null;
      throw new Error(envelope?.message || response.statusText);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let result: PullEvent = {};
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) {
        const data = block.startsWith('data: ') ? block.slice(6) : '';
        if (!data || data === '[DONE]') continue;
        const event = JSON.parse(data) as PullEvent;
        if (event.message || event.error) result = event;
        else onProgress(event);
      }
    }
    if (result.error) throw new Error(result.error);
    return result.message ?? '';
  },
};

/** "pulling 6a07… 45%" for a progress line. */
export function describePull(event: PullEvent): string {
  const percent = event.total ? ` ${Math.floor(((event.completed ?? 0) / event.total) * 100)}%` : '';
  return `${event.status ?? ''}${percent}`;
}
