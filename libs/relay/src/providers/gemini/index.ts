import type { FormatCodec } from '../types.js';
import { geminiToHub, hubToGemini } from './request.js';
import { blockedPromptMessage, geminiResponseToHub, hubToGeminiResponse } from './response.js';
import { GeminiStreamDecoder, GeminiStreamEncoder } from './stream.js';

export { geminiAdaptor } from './adaptor.js';
export { googleImagesGenerations } from './images.js';
export { geminiUsage } from './response.js';
export { geminiModelName } from './thinking.js';

/** HTTP status → Google's canonical error status (google.rpc.Code names). */
function googleStatus(status: number): string {
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 501) return 'UNIMPLEMENTED';
  if (status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  return 'INTERNAL';
}

export const geminiCodec: FormatCodec = {
  id: 'gemini',
  requestToHub: geminiToHub,
  responseFromHub: hubToGeminiResponse,
  streamEncoder: (context) => new GeminiStreamEncoder(context),
  errorBody: (message, _type, status) => ({ error: { code: status, message, status: googleStatus(status) } }),
  requestFromHub: hubToGemini,
  responseToHub: geminiResponseToHub,
  streamDecoder: (model) => new GeminiStreamDecoder(model),
  isErrorBody: (native) => native.error !== undefined && native.candidates === undefined,
  blockedPrompt: blockedPromptMessage,
};
