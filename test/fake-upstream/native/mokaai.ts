import { EMBEDDING } from '../../fixtures/providers/mokaai/fixtures.js';
import { type ProviderFake, sendJson } from './types.js';

/** MokaAI M3E: OpenAI-shaped embeddings at {base}/embeddings. */
export const mokaFake: ProviderFake = {
  name: 'mokaai',
  owns: ({ path }) => path === '/embeddings',
  answer({ res, fail }) {
    if (fail) return sendJson(res, 500, { error: { message: 'model overloaded', type: 'server_error' } });
    sendJson(res, 200, EMBEDDING);
  },
};
