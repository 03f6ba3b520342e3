import { buildProviderRequest, type BuiltRequest } from '@gw/upstream';
import type { AdaptorCall } from '../types.js';
import { geminiModelName } from './thinking.js';

const DEFAULT_VERSION = 'v1beta';
/** An API version is a path segment: only names like v1, v1beta, v1alpha2 are used. */
const VERSION = /^v\d+(?:(?:alpha|beta)\d*)?$/;

/** The channel's `other` field, else gemini.version_settings (per model, then its `default` key), else v1beta. */
function apiVersion(call: AdaptorCall, model: string): string {
  const versions = call.settings.get<Record<string, string>>('gemini.version_settings') ?? {};
  const candidates = [call.channel.other?.trim(), versions[model], versions.default, DEFAULT_VERSION];
  return candidates.find((v): v is string => typeof v === 'string' && VERSION.test(v)) ?? DEFAULT_VERSION;
}

/** POST {base}/{version}/models/{model}:{action} with the key in `x-goog-api-key` (Google's Gemini API). */
export function modelAction(call: AdaptorCall, action: string, stream: boolean): BuiltRequest {
  const model = geminiModelName(call.model, call.settings);
  const path = `/${apiVersion(call, model)}/models/${encodeURIComponent(model)}:${action}`;
  return buildProviderRequest(call.channel.upstream, path, { 'x-goog-api-key': call.channel.upstream.key }, stream);
}
