import { describe, expect, it } from 'vitest';
import { detailLines } from './log-details';

// Renders a key with its values, so the test reads which line was chosen and with what numbers.
const t = (key: string, values?: Record<string, unknown>) =>
  `${key.replace('logs.details.', '')}${values ? ` ${JSON.stringify(values)}` : ''}`;

describe('log details lines', () => {
  it('lists the per-token ratios, the cache and the note', () => {
    const other = {
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1.5,
      user_group_ratio: -1,
      model_price: -1,
      cache_tokens: 10,
      cache_ratio: 0.5,
    };
    expect(detailLines({ content: 'charge capped' }, other, t)).toEqual([
      'modelRatio {"value":"0.075"}',
      'completionRatio {"value":"4"}',
      'groupRatio {"value":"1.5"}',
      'cache {"tokens":10,"ratio":"0.5"}',
      'charge capped',
    ]);
  });

  it('shows a per-call price with the effective group ratio instead of token ratios', () => {
    expect(detailLines({ content: '' }, { model_price: 0.02, model_ratio: 15, group_ratio: 1, user_group_ratio: 0.8 }, t)).toEqual([
      'perCall {"price":"0.02","group":"0.8"}',
    ]);
  });

  it('says when tokens were counted locally and has nothing for an empty row', () => {
    expect(detailLines({ content: '' }, { admin_info: { local_count_tokens: true } }, t)).toEqual(['localCount']);
    expect(detailLines({ content: '' }, {}, t)).toEqual([]);
    expect(detailLines({ content: 'upstream said no' }, { status_code: 429, error_type: 'rate_limit' }, t)).toEqual([
      'error {"status":429,"type":"rate_limit"}',
      'upstream said no',
    ]);
  });
});
