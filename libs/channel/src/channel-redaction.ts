import { Transform } from 'node:stream';
import { KeyRedactor } from './key-redactor.js';
import { redactKeys } from './redact.js';
import type { RelayChannel } from './relay-channel.js';

/** Every key the channel holds: each key of a multi-key channel and the one a call used. */
export function channelKeysOf(channel: Pick<RelayChannel, 'key' | 'keys' | 'upstream'>): string[] {
  return [channel.key, channel.upstream?.key, ...(channel.keys ?? [])].filter((k): k is string => typeof k === 'string');
}

/** The redactor of the channel's keys, or undefined when none is long enough to hide. */
export function channelRedactor(channel: RelayChannel): KeyRedactor | undefined {
  return KeyRedactor.of(channelKeysOf(channel));
}

/** A provider's message (an error, a failure reason) without any piece of the channel's keys. */
export function redactChannelKeys(message: string, channel: RelayChannel | undefined): string {
  return channel ? redactKeys(message, channelKeysOf(channel)) : message;
}

/** A whole answer without the channel's keys; the same string, scanned cheaply, when it holds none. */
export function redactChannelText(text: string, channel: RelayChannel): string {
  return channelRedactor(channel)?.redactText(text) ?? text;
}

/**
 * Bytes piped from a provider to a client (speech audio, a finished video) with every piece of the
 * channel's keys masked, a key split across two chunks included. A clean chunk passes as the same buffer;
 * a chunk ending in key-like bytes has up to 7 of them held back until the next one (see KeyRedactingStream).
 * A provider's binary answer never quotes a key in practice; this makes "no key in any answer" hold for
 * every route rather than for the text ones only.
 */
export function channelRedactingTransform(channel: RelayChannel): Transform {
  const stream = channelRedactor(channel)?.stream();
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out = stream ? stream.push(chunk) : chunk;
      done(null, out.length > 0 ? out : undefined);
    },
    flush(done) {
      const rest = stream?.end();
      done(null, rest && rest.length > 0 ? rest : undefined);
    },
  });
}
