import { openAiEmbeddings, usageOf } from '../native/kit.js';
import { AdaptorRequestError, type EmbeddingAdaptor, type Json } from '../types.js';

/** gemini-embedding-001's largest output size (Google's text-embeddings reference); new-api refuses more up front. */
const GEMINI_EMBEDDING_001_MAX_DIMENSIONS = 3072;

/** The one text of a request: `:predict` is called with a single instance, as new-api calls it. */
function singleText(input: unknown): string {
  let value = input;
  if (Array.isArray(input)) {
    if (input.length !== 1) throw new AdaptorRequestError(`Vertex embedding requires exactly one input, got ${input.length}`);
    value = input[0];
  } else if (typeof input !== 'string') {
    throw new AdaptorRequestError('Vertex embedding input must be a string or a single-element string array');
  }
  if (typeof value !== 'string') throw new AdaptorRequestError('Vertex embedding input array must contain a string');
  if (!value.trim()) throw new AdaptorRequestError('Vertex embedding input must not be empty');
  return value;
}

function outputDimensionality(dimensions: unknown, model: string): number | undefined {
  if (dimensions === undefined || dimensions === null) return undefined;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions <= 0)
    throw new AdaptorRequestError('Vertex embedding dimensions must be an integer greater than zero');
  if (model === 'gemini-embedding-001' && dimensions > GEMINI_EMBEDDING_001_MAX_DIMENSIONS)
    throw new AdaptorRequestError(`Vertex model ${model} supports at most ${GEMINI_EMBEDDING_001_MAX_DIMENSIONS} embedding dimensions`);
  return dimensions;
}

/**
 * Vertex AI text embeddings (publisher google, `:predict`): OpenAI's `{input, dimensions}` becomes
 * `{instances:[{content}], parameters:{outputDimensionality}}`, and the one prediction's
 * `embeddings.values` / `statistics.token_count` comes back as OpenAI's list. `encoding_format` may be `float`
 * or `base64` (new-api refuses base64, which the official SDKs send by default); anything else is refused.
 */
export const vertexEmbeddingShape: Omit<EmbeddingAdaptor, 'buildRequest'> = {
  requestFromOpenAi(body, model) {
    const content = singleText(body.input);
    const format = body.encoding_format;
    // base64 is encoded from the floats by the relay (what the official SDKs ask for by default).
    if (format !== undefined && format !== null && format !== '' && format !== 'float' && format !== 'base64')
      throw new AdaptorRequestError(
        `Vertex embedding does not support encoding_format ${JSON.stringify(format)}; send "float" or "base64"`,
      );
    const dimensions = outputDimensionality(body.dimensions, model);
    const native: Json = { instances: [{ content }] };
    if (dimensions !== undefined) native.parameters = { outputDimensionality: dimensions };
    return native;
  },
  responseToOpenAi(native, model) {
    const predictions = native.predictions;
    if (!Array.isArray(predictions) || predictions.length !== 1)
      throw new Error('Vertex embedding response must contain exactly one prediction');
    const embeddings = predictions[0]?.embeddings;
    const values = embeddings?.values;
    if (!Array.isArray(values) || values.length === 0 || !values.every((v: unknown) => typeof v === 'number'))
      throw new Error('Vertex embedding response contains an empty vector');
    // No positive token_count: the relay bills its own count of the input.
    return { response: openAiEmbeddings(model, [values]), usage: usageOf(embeddings.statistics?.token_count, 0) };
  },
};
