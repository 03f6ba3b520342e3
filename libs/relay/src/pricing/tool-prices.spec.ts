import { describe, expect, it } from 'vitest';
import { optionsStub } from '../../../../test/support/options-stub.js';
import { anthropicUsage } from '../providers/anthropic/response.js';
import { responsesToolCalls, withResponsesToolCalls } from '../providers/openai/responses-tools.js';
import { PricingService } from './pricing.service.js';
import { toolCharges, toolPrice, toolSurcharge } from './tool-prices.js';

const usage = { promptTokens: 100, completionTokens: 10, cachedTokens: 0 };

describe('tool call prices (new-api tool_price_setting)', () => {
  it("uses new-api's defaults, the longest model prefix, and the operator's overrides (0 makes a tool free)", () => {
    expect(toolPrice({}, 'web_search', 'claude-sonnet-4')).toBe(10);
    expect(toolPrice({}, 'web_search_preview', 'o3')).toBe(10);
    expect(toolPrice({}, 'web_search_preview', 'gpt-4o-mini-search-preview')).toBe(25);
    expect(toolPrice({}, 'file_search', 'gpt-4.1')).toBe(2.5);
    const overrides = { web_search: 12, 'web_search_preview:gpt-4o*': 30, 'web_search_preview:gpt-4o-mini*': 0, 'file_search:custom*': 7 };
    expect(toolPrice(overrides, 'web_search', 'claude')).toBe(12);
    expect(toolPrice(overrides, 'web_search_preview', 'gpt-4o-2024-11-20')).toBe(30);
    expect(toolPrice(overrides, 'web_search_preview', 'gpt-4o-mini')).toBe(0);
    expect(toolPrice(overrides, 'file_search', 'custom-v1')).toBe(7);
    expect(toolPrice(overrides, 'unknown_tool', 'gpt-4o')).toBe(0);
    // An image generation tier without a price of its own is priced as the tool ($0.15 a call by default).
    expect(toolPrice({}, 'image_generation/high/1024x1024', 'gpt-4.1')).toBe(150);
    expect(toolPrice({ 'image_generation/high/1024x1024': 167 }, 'image_generation/high/1024x1024', 'gpt-4.1')).toBe(167);
    expect(toolPrice({ image_generation: 40 }, 'image_generation/low/1024x1024', 'gpt-4.1')).toBe(40);
  });

  it('bills the counted calls, and one search per chat with a search-preview model', () => {
    expect(toolCharges({ ...usage, toolCalls: { web_search: 3 } }, 'claude-sonnet-4', false, {})).toEqual([
      { tool: 'web_search', calls: 3, price: 10 },
    ]);
    expect(toolCharges(usage, 'gpt-4o-search-preview', true, {})).toEqual([{ tool: 'web_search_preview', calls: 1, price: 25 }]);
    expect(toolCharges(usage, 'gpt-4o-search-preview', false, {})).toEqual([]);
    expect(toolCharges(usage, 'gpt-4o', true, {})).toEqual([]);
    // 3 × $10 / 1000 × 500000 quota per US$ × group ratio 0.5
    expect(toolSurcharge([{ tool: 'web_search', calls: 3, price: 10 }], 500_000, 0.5)).toBe(7500);
  });

  it('adds the surcharge to ratio, price and expression charges', () => {
    const pricing = new PricingService(
      optionsStub({
        QuotaPerUnit: 500_000,
        ModelRatio: { r: 1, free: 0 },
        ModelPrice: { fixed: 0.01 },
        'billing_setting.billing_mode': { e: 'tiered_expr' },
        'billing_setting.billing_expr': { e: 'tier("t", p * 2)' },
      }),
    );
    const tools = [{ tool: 'web_search' as const, calls: 2, price: 10 }];
    const ratio = pricing.resolve('r', 'default', 'default')!;
    expect(pricing.settleQuota(ratio, usage, tools)).toBe(100 + 10 + 10_000);
    const price = pricing.resolve('fixed', 'default', 'default')!;
    expect(pricing.settleQuota(price, usage, tools)).toBe(5000 + 10_000);
    const expr = pricing.resolve('e', 'default', 'default', { param: () => null, header: () => '' })!;
    expect(pricing.settleQuota(expr, usage, tools)).toBe(100 + 10_000);
    // A free model's tokens cost nothing, its provider's searches still do.
    expect(pricing.settleQuota(pricing.resolve('free', 'default', 'default')!, usage, tools)).toBe(10_000);
    expect(pricing.settleQuota(pricing.resolve('free', 'default', 'default')!, usage)).toBe(0);
  });

  it("reads Anthropic's web searches and the Responses API's hosted tool items", () => {
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 2 } })?.toolCalls).toEqual({
      web_search: 2,
    });
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 5 })?.toolCalls).toBeUndefined();
    const response = {
      output: [
        { type: 'web_search_call', status: 'completed' },
        { type: 'message' },
        { type: 'web_search_call' },
        { type: 'file_search_call' },
      ],
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    expect(responsesToolCalls(response)).toEqual({ web_search_preview: 2, file_search: 1 });
    const images = {
      output: [
        { type: 'image_generation_call', quality: 'high', size: '1024x1024' },
        { type: 'image_generation_call', quality: 'High', size: '1024x1024' },
        { type: 'image_generation_call', quality: 'auto', size: '1024x1536' },
      ],
    };
    expect(responsesToolCalls(images)).toEqual({ 'image_generation/high/1024x1024': 2, image_generation: 1 });
    expect(toolCharges({ ...usage, toolCalls: responsesToolCalls(images) }, 'gpt-4.1', false, {})).toEqual([
      { tool: 'image_generation', calls: 1, price: 150 },
      { tool: 'image_generation/high/1024x1024', calls: 2, price: 150 },
    ]);
    expect(withResponsesToolCalls(usage, JSON.stringify(response)).toolCalls).toEqual({ web_search_preview: 2, file_search: 1 });
    // A call named only inside a text is no call.
    const text = JSON.stringify({ output: [{ type: 'message', content: [{ text: '{"type":"web_search_call"}' }] }] });
    expect(withResponsesToolCalls(usage, text)).toBe(usage);
  });
});
