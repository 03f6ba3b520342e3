import { describe, expect, it } from 'vitest';
import {
  BillingExprError,
  billingExprProblem,
  compileBillingExpr,
  type ExprRequest,
  type ExprTokens,
  NO_TOKENS,
  ruleTraces,
  runBillingExpr,
} from './index.js';

const tokens = (values: Partial<ExprTokens> = {}): ExprTokens => ({ ...NO_TOKENS, ...values });
const noRequest: ExprRequest = { param: () => null, header: () => '' };
/** A run's price and tier (request rules have their own test). */
const run = (source: string, values: Partial<ExprTokens> = {}, request = noRequest) => {
  const { cost, tier } = runBillingExpr(compileBillingExpr(source), tokens(values), request);
  return { cost, tier };
};

const SONNET =
  'len <= 200000 ? tier("standard", p * 3 + c * 15 + cr * 0.3 + cc * 3.75 + cc1h * 6) : tier("long_context", p * 6 + c * 22.5 + cr * 0.6 + cc * 7.5 + cc1h * 12)';

describe('billing expressions (new-api billing_setting.billing_expr)', () => {
  it('prices in US$ per million tokens and names the tier it went through', () => {
    expect(run(SONNET, { p: 1000, c: 500, len: 1000 })).toEqual({ cost: 1000 * 3 + 500 * 15, tier: 'standard' });
    expect(run(SONNET, { p: 250_000, c: 10, cr: 100, len: 250_100 })).toEqual({
      cost: 250_000 * 6 + 10 * 22.5 + 100 * 0.6,
      tier: 'long_context',
    });
    expect(run('v1:tier("base", p * 2.5 + c * 15)', { p: 2, c: 1 }).cost).toBe(20);
    expect(compileBillingExpr(SONNET).uses).toEqual(new Set(['len', 'p', 'c', 'cr', 'cc', 'cc1h']));
  });

  it('reads the request: param paths, headers, has/contains, nil checks and request multipliers', () => {
    const request: ExprRequest = {
      param: (path) => ({ service_tier: 'flex', generate_audio: true, 'stream_options.include_usage': true })[path] ?? null,
      header: (name) => (name === 'anthropic-beta' ? 'fast-mode-2026-02-01' : ''),
    };
    const flex = '(tier("online", c * 10)) * (param("service_tier") == "flex" ? 0.5 : 1)';
    expect(run(flex, { c: 4 }, request).cost).toBe(20);
    expect(run(flex, { c: 4 }).cost).toBe(40);
    expect(run('tier("b", p) * (header("Anthropic-Beta") contains "fast-mode" ? 6 : 1)', { p: 2 }, request).cost).toBe(12);
    expect(run('tier("b", p) * (has(header("anthropic-beta"), "fast") ? 2 : 1)', { p: 2 }, request).cost).toBe(4);
    expect(run('param("missing") != nil ? tier("x", 1) : tier("y", 2)', {}, request)).toEqual({ cost: 2, tier: 'y' });
    expect(run('param("generate_audio") == true && !(p > 5) ? 7 : 0', { p: 1 }, request).cost).toBe(7);
    expect(run('param("service_tier") in ["flex", "batch"] ? 1 : 0', {}, request).cost).toBe(1);
    expect(run('param("nope") ?? 3', {}, request).cost).toBe(3);
  });

  it('follows expr-lang precedence: unary minus, right-grouped powers, and/or/not words', () => {
    expect(run('2 + 3 * 16 ^ 0.5 - -1').cost).toBe(2 + 3 * 4 + 1);
    expect(run('2 ** 3 ** 2').cost).toBe(512);
    expect(run('not (1 > 2) and (1 < 2 or false) ? 1_000 : 0').cost).toBe(1000);
    expect(run('max(p, 10, 3) + min(1, 2) + abs(-2) + ceil(0.2) + floor(1.8) + 7 % 4', { p: 4 }).cost).toBe(10 + 1 + 2 + 1 + 1 + 3);
    expect(run('\'a\' + "b" == `ab` ? 1 : 0').cost).toBe(1);
  });

  it('gives fixed() per-request prices in the same unit', () => {
    expect(run('len <= 32000 ? tier("short", fixed(0.01)) : tier("long", p * 2 + c * 8)', { len: 10 })).toEqual({
      cost: 10_000,
      tier: 'short',
    });
  });

  it('reads the clock in a time zone (hour, weekday, ...)', () => {
    const at = (iso: string): ExprRequest => ({ ...noRequest, now: new Date(iso) });
    const night = 'hour("Asia/Shanghai") < 8 ? tier("night", p * 0.5) : tier("day", p)';
    expect(run(night, { p: 10 }, at('2026-11-28T20:00:00Z'))).toEqual({ cost: 5, tier: 'night' }); // 04:00 in Shanghai
    expect(run(night, { p: 10 }, at('2026-11-29T06:00:00Z'))).toEqual({ cost: 10, tier: 'day' });
    expect(run('weekday("UTC") * 100 + month("UTC") + day("UTC") / 100', {}, at('2026-11-29T06:00:00Z')).cost).toBe(0 + 11 + 0.29);
  });

  it('refuses what cannot be a price, saying why', () => {
    const refusal = (source: string) => {
      try {
        compileBillingExpr(source);
        return 'compiled';
      } catch (error) {
        return error instanceof BillingExprError ? error.message : 'other';
      }
    };
    expect(refusal('p * 3 +')).toMatch(/unexpected the end/);
    expect(refusal('q * 3')).toMatch(/unknown name q/);
    expect(refusal('len(p)')).toMatch(/unknown function len\(\)/);
    expect(refusal('tier(name, p)')).toMatch(/tier\(\) takes the tier name as a string/);
    expect(refusal('tier("a", fixed(p))')).toMatch(/fixed\(\) takes a price/);
    expect(refusal('param("x") matches "(["')).toMatch(/bad pattern for matches/);
    expect(refusal('param("x") matches header("pattern") ? 1 : 0')).toMatch(/matches takes a pattern written in the expression/);
    expect(run('header("user-agent") matches "(?i)^claude-cli/" ? 2 : 1', {}, { ...noRequest, header: () => 'Claude-CLI/1.0' }).cost).toBe(
      2,
    );
    expect(refusal('p.x')).toMatch(/unexpected character/);
    expect(refusal('"open')).toMatch(/unterminated string/);
    expect(refusal(`${'('.repeat(200)}p${')'.repeat(200)}`)).toMatch(/nested too deeply/);
    expect(refusal('')).toMatch(/empty/);
    expect(() => run('p - 10', { p: 1 })).toThrow(/negative price/);
    expect(() => run('param("x") * 2', {}, { param: () => 'a', header: () => '' })).toThrow(/\* needs a number, got string/);
    expect(() => run('p / 0', { p: 1 })).toThrow(/not a price/);
    expect(() => run('hour("Mars/Base") > 1 ? 1 : 0')).toThrow(/unknown time zone/);
  });

  it("checks on save with new-api's smoke vectors", () => {
    expect(billingExprProblem(SONNET)).toBeUndefined();
    expect(billingExprProblem('(tier("x", c * 10)) * (param("service_tier") == "flex" ? 0.5 : 1)')).toBeUndefined();
    expect(billingExprProblem('tier("x", p - 5000)')).toMatch(/^with p=c=0: the expression gave a negative price/);
    expect(billingExprProblem('p > 10 ? 1 : "x"')).toMatch(/^with p=c=0: the expression gave string x/);
    // A request without the field has none: the comparison must allow for nil (?? or != nil).
    expect(billingExprProblem('param("messages.#") > 20 ? 2 : 1')).toMatch(
      /^with p=c=0: > compares two numbers or two strings, got nil and number/,
    );
    expect(billingExprProblem('(param("messages.#") ?? 0) > 20 ? 2 : 1')).toBeUndefined();
    expect(billingExprProblem(42)).toBe('must be a string');
  });

  it('reads task facts with u(): US$ per task, 0 or "" for a fact the provider does not report', () => {
    const veoFast =
      'u("resolution") == "4k" ? tier("4k", u("seconds") * 0.3) : u("resolution") == "1080p" ? tier("1080p", u("seconds") * 0.12) : tier("720p", u("seconds") * 0.1)';
    const task = (usage: Record<string, number | string>) => ({ ...noRequest, usage });
    expect(run(veoFast, {}, task({ seconds: 8, resolution: '4k' }))).toEqual({ cost: 8 * 0.3, tier: '4k' });
    expect(run(veoFast, {}, task({ seconds: 8, resolution: '1080p' }))).toEqual({ cost: 8 * 0.12, tier: '1080p' });
    expect(run(veoFast, {}, task({}))).toEqual({ cost: 0, tier: '720p' });
    expect(run('tier("t", u("tokens") * 9.8 / 1000000)', {}, task({ tokens: 1_000_000 })).cost).toBeCloseTo(9.8);
    // A token relay has no task facts.
    expect(() => run(veoFast)).toThrow(/u\(\) reads the usage of a task/);
    // Only the facts providers report, written in the expression.
    expect(() => compileBillingExpr('tier("t", u("frames"))')).toThrow(/seconds, resolution, mode, count, tokens/);
    expect(() => compileBillingExpr('tier("t", u(header("x")))')).toThrow(BillingExprError);
  });

  it('checks a task expression on save over every combination of task facts; fixed() belongs to token expressions', () => {
    expect(billingExprProblem('tier("base", 0.1 + u("seconds") * 0.4)')).toBeUndefined();
    expect(billingExprProblem('u("mode") == "pro" ? tier("pro", u("seconds") * 0.8) : tier("std", u("seconds") * 0.4)')).toBeUndefined();
    expect(billingExprProblem('tier("r", fixed(0.5)) * u("seconds")')).toMatch(/fixed\(\) is for token expressions/);
    // Negative for one combination only (seconds 0 at 4k).
    expect(billingExprProblem('u("resolution") == "4k" ? tier("4k", u("seconds") - 1) : tier("hd", u("seconds"))')).toMatch(
      /"resolution":"4k".*negative price/,
    );
    // Compares a number with a string for some facts.
    expect(billingExprProblem('tier("t", u("seconds") > u("mode") ? 1 : 2)')).toMatch(/compares two numbers or two strings/);
  });

  it('traces request rules (a condition on the request ? a number : 1), printed canonically, with whether they held', () => {
    const program = compileBillingExpr(
      'tier("base", p * 2) * (param("service_tier")=="priority" ? 2 : 1) * (hour("UTC") < 0 || !(header("X-Beta") contains "fast") ? 1.5 : 1) * (len > 10 ? 3 : 1) * (param("a") == "b" ? 2 : 1.5)',
    );
    expect(program.rules).toEqual([
      { cond: 'param("service_tier") == "priority"', multiplier: 2 },
      { cond: 'hour("UTC") < 0 || !(header("X-Beta") contains "fast")', multiplier: 1.5 },
    ]);
    const request = (tier: string, beta: string): ExprRequest => ({
      param: (path) => (path === 'service_tier' ? tier : null),
      header: (name) => (name === 'x-beta' ? beta : ''),
    });
    const priority = runBillingExpr(program, tokens({ p: 1 }), request('priority', 'fast-mode'));
    // × 2 for the traced rule, × 1.5 from the untraced `? 2 : 1.5`.
    expect(priority.cost).toBe(2 * 2 * 1.5);
    expect(ruleTraces(program, priority)).toEqual([
      { cond: 'param("service_tier") == "priority"', multiplier: 2, matched: true },
      { cond: 'hour("UTC") < 0 || !(header("X-Beta") contains "fast")', multiplier: 1.5, matched: false },
    ]);
    expect(ruleTraces(program, runBillingExpr(program, tokens({ p: 1 }), request('default', '')))?.map((r) => r.matched)).toEqual([
      false,
      true,
    ]);
    // A rule in a branch the run did not take stays unmatched; an expression without rules has no traces.
    const branched = compileBillingExpr('len > 5 ? tier("a", p) * (param("x") == 1 ? 2 : 1) : tier("b", p)');
    expect(ruleTraces(branched, runBillingExpr(branched, tokens({ len: 1 }), { param: () => 1, header: () => '' }))).toEqual([
      { cond: 'param("x") == 1', multiplier: 2, matched: false },
    ]);
    expect(ruleTraces(compileBillingExpr(SONNET), runBillingExpr(compileBillingExpr(SONNET), tokens(), noRequest))).toBeUndefined();
  });

  it("keeps fixed() to new-api's shape: one pricing tree of tier() leaves, each fixed leaf exactly fixed(), times request multipliers", () => {
    const shape = (source: string) => {
      try {
        compileBillingExpr(source);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const accepted of [
      'tier("request", fixed(0.01))',
      'len <= 32000 ? tier("short", fixed(0.01)) : tier("long", p * 2 + c * 8)',
      '(len <= 32000 ? tier("short", fixed(0.01)) : tier("long", p * 2)) * (header("x-fast") == "1" ? 2 : 1)',
      'tier("image", fixed(0.04)) * image_count * (param("quality") == "high" ? 4 : 1)',
    ])
      expect(shape(accepted), accepted).toBeUndefined();
    expect(shape('tier("mixed", fixed(0.01) + p * 2)')).toMatch(/fixed\(\) is the whole price of its tier/);
    expect(shape('tier("a", fixed(0.01)) + tier("b", p * 2)')).toMatch(/every branch of the pricing tree ends in tier/);
    expect(shape('tier("a", fixed(0.01)) * tier("b", p)')).toMatch(/one pricing tree times request multipliers/);
    expect(shape('tier("a", fixed(0.01)) * p')).toMatch(/cannot be multiplied by tokens/);
    expect(shape('tier("a", fixed(0.01)) * (len > 10 ? 2 : 1)')).toMatch(/cannot be multiplied by tokens/);
    expect(shape('(tier("a", fixed(0.01)) > 1 ? tier("b", fixed(1)) : tier("c", fixed(2)))')).toMatch(/a condition cannot hold tier/);
    // Without fixed(), the whole grammar stays.
    expect(shape('tier("a", p * 2) + tier("b", c * 3)')).toBeUndefined();
  });

  it('says which tier was priced per request, and counts pictures with image_count', () => {
    const image = compileBillingExpr('(len > 100 ? tier("long", p * 2) : tier("image", fixed(0.04))) * image_count');
    expect(runBillingExpr(image, tokens({ image_count: 3 }), noRequest)).toMatchObject({
      cost: 0.04 * 1e6 * 3,
      tier: 'image',
      fixedPrice: 0.04,
    });
    expect(runBillingExpr(image, tokens({ len: 200, p: 200 }), noRequest)).not.toHaveProperty('fixedPrice');
    expect(tokens().image_count).toBe(1);
  });

  it("never reads the caller's credentials: refused when written, empty when computed", () => {
    expect(() => compileBillingExpr('tier("t", header("Authorization") contains "sk-" ? p * 2 : p)')).toThrow(
      /header\(\) cannot read authorization/,
    );
    expect(() => compileBillingExpr('tier("t", header("x-api-key") == "" ? p : p * 2)')).toThrow(BillingExprError);
    const computed = compileBillingExpr('tier("t", header(param("h")) == "" ? p : p * 2)');
    const request: ExprRequest = { param: () => 'authorization', header: () => 'Bearer sk-secret' };
    expect(runBillingExpr(computed, tokens({ p: 1 }), request).cost).toBe(1);
    expect(computed.headers).toEqual([]);
  });
});
