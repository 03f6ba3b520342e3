import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** The smallest WebSocket server side the Spark fake needs: the handshake, text frames in and out, close. */
export interface FakeSocket {
  /** Resolves with the first text message the client sends. */
  firstMessage: Promise<string>;
  sendText(text: string): void;
  close(): void;
}

export function acceptWebSocket(req: IncomingMessage, socket: Duplex): FakeSocket {
  const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  let buffer = Buffer.alloc(0);
  const firstMessage = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const frame = readFrame(buffer);
      if (frame && frame.opcode === 1) resolve(frame.payload.toString('utf8'));
    });
  });
  return {
    firstMessage,
    sendText(text) {
      const payload = Buffer.from(text);
      const head =
        payload.length < 126
          ? Buffer.from([0x81, payload.length])
          : payload.length < 65536
            ? Buffer.from([0x81, 126, payload.length >> 8, payload.length & 255])
            : Buffer.concat([Buffer.from([0x81, 127]), bigLength(payload.length)]);
      socket.write(Buffer.concat([head, payload]));
    },
    close() {
      socket.end(Buffer.from([0x88, 0]));
    },
  };
}

function bigLength(length: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(length));
  return out;
}

/** One complete client frame (clients always mask), or undefined while it is still arriving. */
function readFrame(buffer: Buffer): { opcode: number; payload: Buffer } | undefined {
  if (buffer.length < 2) return undefined;
  const opcode = buffer[0]! & 0x0f;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + 4 + length) return undefined;
  const mask = buffer.subarray(offset, offset + 4);
  const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
  for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!;
  return { opcode, payload };
}
