import type { EventStreamCodec } from '@smithy/core/event-streams';
import { onFirstUse } from '@gw/core';
import { parseJsonObject } from '../sse-events.js';
import type { SseEvent, StreamFramer } from '../types.js';

/** A frame longer than this is a broken stream, not an answer. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const utf8Text = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
const utf8Bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The AWS event-stream codec, loaded by the first Bedrock stream (see onFirstUse). */
export const eventStreamCodec = onFirstUse(async () => {
  const { EventStreamCodec } = await import('@smithy/core/event-streams');
  return new EventStreamCodec(utf8Text, utf8Bytes);
});

/**
 * Reads InvokeModelWithResponseStream's body: AWS event-stream frames (a 4-byte big-endian total length,
 * headers, a payload and CRCs, checked by the codec), each `chunk` event carrying one Anthropic stream event
 * as base64 in `{"bytes": ...}`. Out come the Anthropic events, as SSE events for the Anthropic decoder. An
 * exception frame (throttling, validation, model errors mid-stream) ends the stream with its message.
 */
export class BedrockEventStreamReader implements StreamFramer {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly codec: EventStreamCodec) {}

  push(chunk: Buffer): SseEvent[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: SseEvent[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (length < 16 || length > MAX_FRAME_BYTES) throw new Error('bad AWS event-stream frame');
      if (this.buffer.length < length) break;
      const frame = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      const event = this.read(frame);
      if (event) out.push(event);
    }
    return out;
  }

  end(): SseEvent[] {
    if (this.buffer.length) throw new Error('the AWS event stream ended inside a frame');
    return [];
  }

  private read(frame: Buffer): SseEvent | undefined {
    const message = this.codec.decode(frame);
    const header = (name: string) => {
      const value = message.headers[name]?.value;
      return typeof value === 'string' ? value : '';
    };
    const payload = parseJsonObject(utf8Text(message.body));
    if (header(':message-type') === 'exception' || header(':message-type') === 'error') {
      const kind = header(':exception-type') || header(':error-code') || 'error';
      const text = typeof payload?.message === 'string' ? payload.message : header(':error-message') || 'stream error';
      throw new Error(`${kind}: ${text}`);
    }
    if (header(':event-type') !== 'chunk' || typeof payload?.bytes !== 'string') return undefined;
    const data = Buffer.from(payload.bytes, 'base64').toString('utf8');
    const type = parseJsonObject(data)?.type;
    return { event: typeof type === 'string' ? type : '', data };
  }
}
