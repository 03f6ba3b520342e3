import { describe, expect, it } from 'vitest';
import { detailLines } from './log-details';
import { cacheHitRate } from './log-other';

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

  it('names the expression tier instead of ratios for a row billed by expression', () => {
    const other = { billing_mode: 'tiered_expr' as const, matched_tier: 'long', model_ratio: 0, group_ratio: 0.5, cache_tokens: 3 };
    expect(detailLines({ content: '' }, other, t)).toEqual(['expression {"tier":"long","group":"0.5"}', 'cacheTokens {"tokens":3}']);
    const task = {
      billing_mode: 'tiered_expr' as const,
      matched_tier: 'high',
      group_ratio: 1,
      task_usage: { seconds: 8, resolution: '1024p' },
      request_rules: [
        { cond: 'header("x-rush") == "yes"', multiplier: 2, matched: true },
        { cond: 'param("n") > 1', multiplier: 3, matched: false },
      ],
    };
    // Only the rules that applied are listed.
    expect(detailLines({ content: '' }, task, t)).toEqual([
      'expression {"tier":"high","group":"1"}',
      `requestRule ${JSON.stringify(task.request_rules[0])}`,
      'taskUsage {"facts":"seconds 8, resolution 1024p"}',
    ]);
  });

  it('lists input image tokens at their ratio and Gemini audio input at its own price', () => {
    const other = { model_ratio: 1, completion_ratio: 2, group_ratio: 1, image: true, image_ratio: 2, image_output: 600 };
    expect(detailLines({ content: '' }, { ...other, audio_input_token_count: 800, audio_input_price: 0.7 }, t).slice(3)).toEqual([
      'imageInput {"tokens":600,"ratio":"2"}',
      'audioInput {"tokens":800,"price":"$0.7"}',
    ]);
  });

  it('lists the hosted tool calls billed per call', () => {
    const other = {
      web_search_call_count: 2,
      web_search_price: 10,
      file_search_call_count: 1,
      file_search_price: 2.5,
      google_search_call_count: 3,
      google_search_price: 14,
    };
    expect(detailLines({ content: '' }, other, t)).toEqual([
      'webSearch {"calls":2,"price":"$10"}',
      'fileSearch {"calls":1,"price":"$2.5"}',
      'googleSearch {"calls":3,"price":"$14"}',
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

  it('names the channel affinity rule and key, and the pinned channel when the request went there', () => {
    const info = { rule_name: 'codex cli trace', key_hint: 'conv-a', key_fp: 'ab12cd34' };
    expect(detailLines({ content: '' }, { admin_info: { channel_affinity: { ...info, channel_id: 7 } } }, t)).toEqual([
      'affinityPinned {"rule":"codex cli trace","key":"conv-a","channel":7}',
    ]);
    expect(detailLines({ content: '' }, { admin_info: { channel_affinity: info } }, t)).toEqual([
      'affinity {"rule":"codex cli trace","key":"conv-a"}',
    ]);
  });

  it('rates cache hits over the prompt, or over prompt plus cached tokens for Anthropic counts', () => {
    expect(cacheHitRate({ cached_token_rate_mode: 'cached_over_prompt', prompt_tokens: 100, cached_tokens: 25 })).toBe(0.25);
    expect(cacheHitRate({ cached_token_rate_mode: 'cached_over_prompt_plus_cached', prompt_tokens: 75, cached_tokens: 25 })).toBe(0.25);
    expect(cacheHitRate({ cached_token_rate_mode: '', prompt_tokens: 0, cached_tokens: 0 })).toBe(0);
  });
});
