import type { ChannelAdaptor } from '../types.js';
import { geminiEmbeddingShape } from './embeddings.js';
import { geminiImagesGenerations } from './images.js';
import { modelAction } from './model-url.js';
import { withAdapterThinking } from './thinking.js';

/**
 * Google Gemini (type 24): POST {base}/{version}/models/{model}:generateContent, or
 * :streamGenerateContent?alt=sse, with the key in `x-goog-api-key`; Gemini clients' embeddings go to
 * :embedContent / :batchEmbedContents the same way, OpenAI embeddings to :batchEmbedContents, and OpenAI image
 * generation to Imagen's :predict or an image model's generateContent. With the thinking adapter on, {model} is
 * the name without its thinking suffix (thinking.ts).
 */
export const geminiAdaptor: ChannelAdaptor = {
  format: 'gemini',
  buildChatRequest(call) {
    return modelAction(call, call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent', call.stream);
  },
  geminiEmbeddings(call, batch) {
    return modelAction(call, batch ? 'batchEmbedContents' : 'embedContent', false);
  },
  embeddings: { ...geminiEmbeddingShape, buildRequest: (call) => modelAction(call, 'batchEmbedContents', false) },
  endpoints: { images_generations: geminiImagesGenerations },
  finishBody(body, call, converted) {
    // The model and the stream mode live in the URL; a Gemini body carries neither.
    const { model: _model, stream: _stream, ...rest } = body;
    // A converted request got the thinking adapter's config with the rest of the conversion (hubToGemini).
    return converted ? rest : withAdapterThinking(rest, call.model, call.settings);
  },
};
