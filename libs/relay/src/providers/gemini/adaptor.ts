import { buildProviderRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { geminiModelName, withAdapterThinking } from './thinking.js';

const DEFAULT_VERSION = 'v1beta';
/** An API version is a path segment: only names like v1, v1beta, v1alpha2 are used. */
const VERSION = /^v\d+(?:(?:alpha|beta)\d*)?$/;

/** The channel's `other` field, else gemini.version_settings (per model, then its `default` key), else v1beta. */
function apiVersion(call: AdaptorCall, model: string): string {
  const versions = call.settings.get<Record<string, string>>('gemini.version_settings') ?? {};
  const candidates = [call.channel.other?.trim(), versions[model], versions.default, DEFAULT_VERSION];
  return candidates.find((v): v is string => typeof v === 'string' && VERSION.test(v)) ?? DEFAULT_VERSION;
}

function modelAction(call: AdaptorCall, action: string, stream: boolean) {
  const model = geminiModelName(call.model, call.settings);
  const path = `/${apiVersion(call, model)}/models/${encodeURIComponent(model)}:${action}`;
  return buildProviderRequest(call.channel.upstream, path, { 'x-goog-api-key': call.channel.upstream.key }, stream);
}

/**
 * Google Gemini (type 24): POST {base}/{version}/models/{model}:generateContent, or
 * :streamGenerateContent?alt=sse, with the key in `x-goog-api-key`; Gemini clients' embeddings go to
 * :embedContent / :batchEmbedContents the same way. With the thinking adapter on, {model} is the name without
 * its thinking suffix (thinking.ts).
 */
export const geminiAdaptor: ChannelAdaptor = {
  format: 'gemini',
  buildChatRequest(call) {
    return modelAction(call, call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent', call.stream);
  },
  geminiEmbeddings(call, batch) {
    return modelAction(call, batch ? 'batchEmbedContents' : 'embedContent', false);
  },
  finishBody(body, call, converted) {
    // The model and the stream mode live in the URL; a Gemini body carries neither.
    const { model: _model, stream: _stream, ...rest } = body;
    // A converted request got the thinking adapter's config with the rest of the conversion (hubToGemini).
    return converted ? rest : withAdapterThinking(rest, call.model, call.settings);
  },
};
