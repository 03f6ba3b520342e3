import { onFirstUse } from '@gw/core';
import { buildProviderRequest } from '@gw/upstream';
import { anthropicAdaptor } from '../anthropic/index.js';
import { AdaptorAuthError, type AdaptorCall, type ChannelAdaptor } from '../types.js';
import { BedrockEventStreamReader, eventStreamCodec } from './event-stream.js';
import { bedrockModelId } from './model-ids.js';
import { NodeSha256 } from './node-sha256.js';

/** The body version Bedrock's Anthropic models require instead of the anthropic-version header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
const EVENT_STREAM = 'application/vnd.amazon.eventstream';
/** AWS Signature V4, loaded by the first request signed with an access key (see onFirstUse). */
const signatureV4 = onFirstUse(async () => (await import('@smithy/signature-v4')).SignatureV4);
/** A region is a DNS label such as us-east-1: it becomes part of the host name. */
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

type AwsKey =
  | { kind: 'sigv4'; accessKeyId: string; secretAccessKey: string; region: string }
  | { kind: 'bearer'; apiKey: string; region: string };

/** `AccessKey|SecretKey|Region` (signed with SigV4), or new-api's `BedrockAPIKey|Region` (a bearer key). */
export function parseAwsKey(key: string): AwsKey {
  const parts = key.split('|').map((part) => part.trim());
  const region = parts.at(-1) ?? '';
  if (parts.length === 3 && parts[0] && parts[1] && REGION.test(region))
    return { kind: 'sigv4', accessKeyId: parts[0], secretAccessKey: parts[1], region };
  if (parts.length === 2 && parts[0] && REGION.test(region)) return { kind: 'bearer', apiKey: parts[0], region };
  throw new AdaptorAuthError('the AWS key must be AccessKey|SecretKey|Region (or APIKey|Region), with a region such as us-east-1');
}

function clientHeader(call: AdaptorCall, name: string): string | undefined {
  const value = call.clientHeaders?.[name];
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/**
 * AWS Bedrock Claude (type 33): InvokeModel at POST {endpoint}/model/{model id}/invoke, and
 * InvokeModelWithResponseStream at .../invoke-with-response-stream, whose answer is AWS event-stream frames.
 * The endpoint is bedrock-runtime.{region}.amazonaws.com unless the channel gives a base URL (a VPC endpoint or
 * a proxy). The body is Anthropic's Messages body without model and stream, with Bedrock's anthropic_version;
 * the answer and the stream events are Anthropic's, so the Anthropic codec reads them.
 */
export const bedrockAdaptor: ChannelAdaptor = {
  format: 'anthropic',
  buildChatRequest(call) {
    const key = parseAwsKey(call.channel.upstream.key);
    const upstream = call.channel.upstream;
    const baseUrl = upstream.baseUrl || `https://bedrock-runtime.${key.region}.amazonaws.com`;
    const action = call.stream ? 'invoke-with-response-stream' : 'invoke';
    const path = `/model/${encodeURIComponent(bedrockModelId(call.model, key.region))}/${action}`;
    const built = buildProviderRequest({ ...upstream, baseUrl }, path, {}, call.stream);
    if (call.stream) built.headers = { ...built.headers, accept: EVENT_STREAM, 'x-amzn-bedrock-accept': 'application/json' };
    return built;
  },
  finishBody(body, call, converted) {
    const thought = anthropicAdaptor.finishBody ? anthropicAdaptor.finishBody(body, call, converted) : body;
    const { model: _model, stream: _stream, ...rest } = thought;
    const out: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
    // Bedrock takes beta flags in the body, not as a header.
    const beta = clientHeader(call, 'anthropic-beta');
    if (beta && out.anthropic_beta === undefined)
      out.anthropic_beta = beta
        .split(',')
        .map((flag) => flag.trim())
        .filter(Boolean);
    return out;
  },
  async authorize(built, body, call) {
    const key = parseAwsKey(call.channel.upstream.key);
    if (key.kind === 'bearer') return { ...built, headers: { ...built.headers, authorization: `Bearer ${key.apiKey}` } };
    const url = new URL(built.url);
    const SignatureV4 = await signatureV4();
    const signer = new SignatureV4({
      credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey },
      region: key.region,
      service: 'bedrock',
      sha256: NodeSha256,
    });
    const signed = await signer.sign({
      method: built.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...built.headers, host: url.host },
      body,
    });
    // The transport sends the same Host itself.
    const { host: _host, ...headers } = signed.headers;
    return { ...built, headers };
  },
  streamFraming: { contentType: EVENT_STREAM, reader: async () => new BedrockEventStreamReader(await eventStreamCodec()) },
};
