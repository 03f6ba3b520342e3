import { embeddingInputs, openAiEmbeddings } from '../native/kit.js';
import { AdaptorRequestError, type EmbeddingAdaptor } from '../types.js';

/** The models that take outputDimensionality (new-api: those introduced after 2024). */
const WITH_DIMENSIONS = new Set(['text-embedding-004', 'gemini-embedding-exp-03-07', 'gemini-embedding-001']);

/**
 * OpenAI `/v1/embeddings` on a Gemini channel, as new-api sends it: always `:batchEmbedContents`, one request per
 * input text with the model as `models/{model}` and `dimensions` as outputDimensionality where the model takes it.
 * Gemini reports no tokens for embeddings: the local count of the input is billed.
 */
export const geminiEmbeddingShape: Omit<EmbeddingAdaptor, 'buildRequest'> = {
  requestFromOpenAi(body, model) {
    const texts = embeddingInputs(body);
    if (!texts.length) throw new AdaptorRequestError('input is empty');
    const dimensions =
      typeof body.dimensions === 'number' && body.dimensions > 0 && WITH_DIMENSIONS.has(model) ? body.dimensions : undefined;
    return {
      requests: texts.map((text) => ({
        model: `models/${model}`,
        content: { parts: [{ text }] },
        ...(dimensions ? { outputDimensionality: dimensions } : {}),
      })),
    };
  },
  responseToOpenAi(native, model) {
    if (!Array.isArray(native.embeddings)) throw new Error('the Gemini answer has no embeddings');
    const vectors = native.embeddings.map((item: unknown) => {
      const values = typeof item === 'object' && item !== null ? (item as { values?: unknown }).values : undefined;
      return Array.isArray(values) ? values : [];
    });
    return { response: openAiEmbeddings(model, vectors) };
  },
};
