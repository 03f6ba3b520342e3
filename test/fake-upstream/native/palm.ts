import { CHAT, ERROR, ERROR_STATUS } from '../../fixtures/providers/palm/fixtures.js';
import { type ProviderFake, sendJson } from './types.js';

export const PALM_KEY = 'palm-fixture-key';

/** PaLM 2: generateMessage with x-goog-api-key; no streaming API. */
export const palmFake: ProviderFake = {
  name: 'palm',
  owns: ({ path }) => path.endsWith(':generateMessage'),
  answer({ req, res, fail }) {
    if (fail || req.headers['x-goog-api-key'] !== PALM_KEY) return sendJson(res, ERROR_STATUS, ERROR);
    sendJson(res, 200, CHAT);
  },
};
