import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import * as replicate from '../../../../../test/fixtures/providers/replicate/index.js';
import { NO_SETTINGS } from '../native/test-call.js';
import { adaptorOf } from '../registry.js';
import type { AdaptorCall } from '../types.js';
import { replicateAdaptor } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };
const call: AdaptorCall = {
  channel: {
    id: 6,
    type: 56,
    other: '',
    upstream: { id: 6, type: 56, key: replicate.TOKEN, baseUrl: '', other: '' },
  } as unknown as RelayChannel,
  model: replicate.MODEL,
  stream: false,
  settings,
};

describe('Replicate adaptor (type 56)', () => {
  const images = replicateAdaptor.endpoints!.images_generations!;

  it('creates a prediction of the model with Prefer: wait and the FLUX inputs (fixture)', () => {
    expect(adaptorOf(56)).toBe(replicateAdaptor);
    expect(images.build(call)).toEqual({
      url: `https://api.replicate.com${replicate.PATH}`,
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${replicate.TOKEN}`,
        prefer: 'wait',
      },
    });
    expect(images.body(replicate.IMAGE_REQUEST, replicate.MODEL, NO_SETTINGS)).toEqual(replicate.PREDICTION_BODY);
    expect(images.body({ prompt: 'x', quality: 'hd', input: { seed: 7 } }, replicate.MODEL, NO_SETTINGS)).toEqual({
      input: { prompt: 'x', prompt_upsampling: true, seed: 7 },
    });
  });

  it('answers the output URLs as OpenAI image data, and fails on a failed or unfinished prediction', () => {
    expect(images.answer(replicate.PREDICTION).response).toEqual({
      created: Date.parse(replicate.PREDICTION.created_at) / 1000,
      data: replicate.PREDICTION.output.map((url) => ({ url })),
    });
    expect(() => images.answer(replicate.PREDICTION_FAILED)).toThrow('NSFW');
    expect(() => images.answer(replicate.PREDICTION_PROCESSING)).toThrow(/processing/);
  });
});
