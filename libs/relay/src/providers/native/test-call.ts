import type { RelayChannel } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import { Readable } from 'node:stream';
import { SseEventReader } from '../sse-events.js';
import type { AdaptorCall, AdaptorHttp, HubChunk, ProviderCodec } from '../types.js';

/** An adaptor call on a channel of `type` (unit specs of the native adaptors). */
export function testCall(
  type: number,
  key: string,
  model: string,
  fields: { stream?: boolean; other?: string; baseUrl?: string } = {},
): AdaptorCall {
  const upstream = { id: 7, type, key, baseUrl: fields.baseUrl ?? 'https://up.example', other: fields.other ?? '', headerOverride: null };
  return {
    channel: { id: 7, type, other: upstream.other, upstream } as unknown as RelayChannel,
    model,
    stream: fields.stream ?? false,
    settings: { get: <T>() => undefined as T },
  };
}

/** A recording AdaptorHttp answering each call with the next scripted answer. */
export function scriptedHttp(answers: { status?: number; contentType?: string; body: string }[]) {
  const sent: { built: BuiltRequest; init?: UpstreamRequestInit }[] = [];
  const http: AdaptorHttp = {
    async sendBuilt(built, init) {
      sent.push({ built, init });
      const answer = answers.shift() ?? { status: 500, body: '{}' };
      return {
        status: answer.status ?? 200,
        headers: { 'content-type': answer.contentType ?? 'application/json' },
        body: Readable.from([Buffer.from(answer.body)]),
        text: async () => answer.body,
        json: async <T>() => JSON.parse(answer.body) as T,
      } satisfies UpstreamResponse;
    },
    publicOnlyDispatcher: () => undefined,
  };
  return { http, sent };
}

/** A native stream read through the codec's decoder: the text it carries and the usage it reported. */
export function decodeStream(codec: ProviderCodec, stream: string, model = 'm'): { text: string; chunks: HubChunk[]; usage: unknown } {
  const decoder = codec.streamDecoder(model);
  const reader = new SseEventReader();
  const chunks = [...reader.push(stream), ...reader.end()].flatMap((event) => decoder.decode(event));
  const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
  return { text, chunks, usage: decoder.usage() };
}

/** Provider settings with no option set. */
export const NO_SETTINGS = { get: <T>() => undefined as T };
