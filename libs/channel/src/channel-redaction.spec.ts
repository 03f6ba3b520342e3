import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { channelKeysOf, channelRedactingTransform, redactChannelText } from './channel-redaction.js';
import type { RelayChannel } from './relay-channel.js';

const KEYS = ['sk-FIRSTkey0123456789abcdefABCDEF', 'sk-SECONDkey9876543210zyxwvuZYXW'];
/** A multi-key channel whose call used its second key. */
const channel = { key: KEYS.join('\n'), keys: KEYS, upstream: { key: KEYS[1] } } as unknown as RelayChannel;

async function piped(chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(channelRedactingTransform(channel))) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

describe('channel redaction', () => {
  it('knows every key of the channel', () => {
    expect(new Set(channelKeysOf(channel))).toEqual(new Set([...KEYS, KEYS.join('\n')]));
  });

  it('masks a key in a whole answer and leaves a clean one as the same string', () => {
    expect(redactChannelText(`echo ${KEYS[0]} done`, channel)).toBe('echo *** done');
    const clean = 'nothing secret here, just a long enough sentence';
    expect(redactChannelText(clean, channel)).toBe(clean);
  });

  it('masks a key in piped bytes wherever the chunks are cut, keeping every other byte', async () => {
    const head = Buffer.from([0x00, 0xff, 0x10, 0x80]);
    const tail = Buffer.from([0xfe, 0x0a, 0x00]);
    const bytes = Buffer.concat([head, Buffer.from(KEYS[1]!), tail]);
    const expected = Buffer.concat([head, Buffer.from('***'), tail]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await piped([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at ${cut}`).toEqual(expected);
    }
  });

  it('passes bytes without a key through unchanged, trailing key-like bytes (held back, then flushed) included', async () => {
    const bytes = Buffer.concat([Buffer.alloc(100, 0x01), Buffer.from('sk-FIRS')]);
    expect(await piped([bytes.subarray(0, 50), bytes.subarray(50)])).toEqual(bytes);
  });
});
