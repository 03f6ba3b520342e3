import { buildProviderRequest } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';

const DEFAULT_VERSION = 'v1beta';
/** An API version is a path segment: only names like v1, v1beta, v1alpha2 are used. */
const VERSION = /^v\d+(?:(?:alpha|beta)\d*)?$/;

/**
 * Google Gemini (type 24): POST {base}/{version}/models/{model}:generateContent, or
 * :streamGenerateContent?alt=sse, with the key in `x-goog-api-key`. The version is the channel's `other`
 * field, else gemini.version_settings (per model, then its `default` key), else v1beta.
 */
export const geminiAdaptor: ChannelAdaptor = {
  format: 'gemini',
  buildChatRequest(call) {
    const versions = call.settings.get<Record<string, string>>('gemini.version_settings') ?? {};
    const candidates = [call.channel.other?.trim(), versions[call.model], versions.default, DEFAULT_VERSION];
    const version = candidates.find((v): v is string => typeof v === 'string' && VERSION.test(v)) ?? DEFAULT_VERSION;
    const action = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    const path = `/${version}/models/${encodeURIComponent(call.model)}:${action}`;
    return buildProviderRequest(call.channel.upstream, path, { 'x-goog-api-key': call.channel.upstream.key }, call.stream);
  },
  finishBody(body) {
    // The model and the stream mode live in the URL; a Gemini body carries neither.
    const { model: _model, stream: _stream, ...rest } = body;
    return rest;
  },
};
