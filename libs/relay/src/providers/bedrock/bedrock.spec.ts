import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import {
  CHAT_REQUEST,
  encodeEventStream,
  encodeException,
  INVOKE_BODY,
  INVOKE_PATH,
  INVOKE_RESPONSE,
  KEY,
  SECRET_KEY,
  STREAM_EVENTS,
  STREAM_PATH,
  STREAM_TEXT,
} from '../../../../../test/fixtures/providers/bedrock/index.js';
import { anthropicCodec } from '../anthropic/index.js';
import { adaptorOf } from '../registry.js';
import { AdaptorAuthError, type AdaptorCall } from '../types.js';
import { BedrockEventStreamReader, bedrockAdaptor, bedrockModelId, eventStreamCodec } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };

function call(stream = false, key = KEY, baseUrl = ''): AdaptorCall {
  const upstream = { id: 7, type: 33, key, baseUrl, other: '' };
  return { channel: { id: 7, type: 33, other: '', upstream } as unknown as RelayChannel, model: CHAT_REQUEST.model, stream, settings };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** SigV4 recomputed from AWS's documented algorithm, independently of the signing library. */
function expectedSignature(url: URL, headers: Record<string, string>, body: string): string {
  const auth = headers.authorization!;
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!;
  const scope = /Credential=[^/]+\/([^,]+)/.exec(auth)![1]!;
  const [date, region, service] = scope.split('/');
  const all: Record<string, string> = { ...headers, host: url.host };
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${all[name]!.trim()}\n`)
    .join('');
  const canonicalUri = url.pathname
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  const canonical = ['POST', canonicalUri, '', canonicalHeaders, signedHeaders, sha256(body)].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', headers['x-amz-date'], scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${SECRET_KEY}`, date!), region!), service!), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('AWS Bedrock Claude adaptor (type 33)', () => {
  it('is registered for type 33 and speaks Anthropic Messages', () => {
    expect(adaptorOf(33)).toBe(bedrockAdaptor);
    expect(bedrockAdaptor.format).toBe('anthropic');
  });

  it('builds InvokeModel on the region endpoint with the mapped model id and Bedrock body (fixture)', async () => {
    const built = bedrockAdaptor.buildChatRequest(call());
    expect(built.url).toBe(`https://bedrock-runtime.us-east-1.amazonaws.com${INVOKE_PATH}`);
    const hub = anthropicCodec.requestFromHub({ ...CHAT_REQUEST }, CHAT_REQUEST.model, settings);
    const body = bedrockAdaptor.finishBody!(hub, call(), true);
    expect(body).toEqual(INVOKE_BODY);
    const streamed = bedrockAdaptor.buildChatRequest(call(true, KEY, 'http://127.0.0.1:9/'));
    expect(streamed.url).toBe(`http://127.0.0.1:9${STREAM_PATH}`);
    expect(streamed.headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  it('signs with SigV4 (service bedrock, the region of the key) over the exact body bytes', async () => {
    const built = bedrockAdaptor.buildChatRequest(call());
    const body = JSON.stringify(INVOKE_BODY);
    const signed = await bedrockAdaptor.authorize!(built, body, call());
    expect(signed.url).toBe(built.url);
    expect(signed.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(signed.headers.authorization).toContain('host');
    expect(signed.headers.host).toBeUndefined();
    const signature = /Signature=([0-9a-f]+)/.exec(signed.headers.authorization!)![1];
    expect(signature).toBe(expectedSignature(new URL(signed.url), signed.headers, body));
    // A changed byte is a different signature: the bytes signed must be the bytes sent.
    expect(signature).not.toBe(expectedSignature(new URL(signed.url), signed.headers, `${body} `));
  });

  it('takes a Bedrock API key as a bearer token, and refuses a key of another shape', async () => {
    const bearer = await bedrockAdaptor.authorize!(
      bedrockAdaptor.buildChatRequest(call(false, 'ABSK-key|eu-west-1')),
      '{}',
      call(false, 'ABSK-key|eu-west-1'),
    );
    expect(bearer.headers.authorization).toBe('Bearer ABSK-key');
    expect(bearer.url).toContain('bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-3-5-sonnet-20240620-v1%3A0/');
    for (const bad of ['just-a-key', 'AK|SK|not a region', 'AK|SK|evil.com/x-1', '|SK|us-east-1'])
      expect(() => bedrockAdaptor.buildChatRequest(call(false, bad)), bad).toThrow(AdaptorAuthError);
  });

  it('maps Claude names to Bedrock ids with the cross-region profile of the geography (as new-api)', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'ap-northeast-1')).toBe('apac.anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-opus-20240229', 'eu-central-1')).toBe('anthropic.claude-3-opus-20240229-v1:0');
    expect(bedrockModelId('anthropic.claude-v2:1', 'us-west-2')).toBe('anthropic.claude-v2:1');
  });

  it('reads the event-stream frames whatever the chunking, as Anthropic events with their usage', async () => {
    const bytes = encodeEventStream(STREAM_EVENTS);
    const codec = await eventStreamCodec();
    for (const size of [1, 7, 64, bytes.length]) {
      const reader = new BedrockEventStreamReader(codec);
      const decoder = anthropicCodec.streamDecoder(CHAT_REQUEST.model);
      let text = '';
      for (let at = 0; at < bytes.length; at += size)
        for (const event of reader.push(bytes.subarray(at, at + size)))
          for (const chunk of decoder.decode(event)) text += chunk.choices?.[0]?.delta?.content ?? '';
      expect(reader.end()).toEqual([]);
      expect(text).toBe(STREAM_TEXT);
      expect(decoder.usage()).toMatchObject({ promptTokens: 132, completionTokens: 8, cachedTokens: 100, cacheCreationTokens: 20 });
    }
  });

  it('ends the stream on an exception frame, and on a stream cut inside a frame', async () => {
    const codec = await eventStreamCodec();
    const reader = new BedrockEventStreamReader(codec);
    expect(() => reader.push(encodeException('throttlingException', 'Too many requests'))).toThrow(
      /throttlingException: Too many requests/,
    );
    const cut = new BedrockEventStreamReader(codec);
    cut.push(encodeEventStream(STREAM_EVENTS.slice(0, 1)).subarray(0, 20));
    expect(() => cut.end()).toThrow(/inside a frame/);
  });

  it('reads the InvokeModel answer with the Anthropic codec (cache reads and writes)', () => {
    const { usage } = anthropicCodec.responseToHub(INVOKE_RESPONSE, CHAT_REQUEST.model);
    expect(usage).toMatchObject({ promptTokens: 132, completionTokens: 8, cachedTokens: 100, cacheCreationTokens: 20 });
  });
});
