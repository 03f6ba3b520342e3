import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BillingExprError, billingExprProblem, compileBillingExpr, type ExprTokens, runBillingExpr } from './index.js';

/** Pieces an operator (or an attacker with the admin page) could put together. */
const PIECES = [
  'p',
  'c',
  'len',
  'cr',
  'cc',
  'cc1h',
  'img',
  'q',
  '1',
  '0',
  '2.5',
  '1_000',
  '.5',
  '1e3',
  '"a"',
  "'b'",
  '`c`',
  'nil',
  'true',
  'false',
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '^',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '&&',
  '||',
  '!',
  'and',
  'or',
  'not',
  '?',
  ':',
  '??',
  '(',
  ')',
  '[',
  ']',
  ',',
  'in',
  'contains',
  'matches',
  'tier(',
  'fixed(',
  'param(',
  'header(',
  'has(',
  'max(',
  'min(',
  'abs(',
  'ceil(',
  'floor(',
  'hour(',
  '"UTC"',
  '"(["',
  '"x.y"',
  '\\',
  '"\\u0041"',
  '.',
];

const tokens = fc.record<ExprTokens>({
  p: fc.nat(),
  c: fc.nat(),
  len: fc.nat(),
  cr: fc.nat(),
  cc: fc.nat(),
  cc1h: fc.nat(),
  img: fc.constant(0),
  img_o: fc.constant(0),
  img_cr: fc.constant(0),
  ai: fc.constant(0),
  ao: fc.constant(0),
  image_count: fc.integer({ min: 1, max: 128 }),
});
const request = fc.record({ body: fc.jsonValue(), header: fc.string() }).map(({ body, header }) => ({
  param: (path: string) =>
    (typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[path] : null) ?? null,
  header: () => header,
}));

/** Anything else than a BillingExprError escaping is a crash: a 500 on save, or a request the relay cannot settle. */
function onlyExpressionErrors(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof BillingExprError)) throw error;
  }
}

describe('billing expressions under generated input', () => {
  it('answers any text with a reason or nothing, never a crash', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(' ')),
        ),
        (source) => {
          const problem = billingExprProblem(source);
          expect(problem === undefined || typeof problem === 'string').toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('runs any well-formed program on any tokens and request to a price or an expression error', () => {
    // Programs built from the grammar, so nearly all compile (random pieces rarely do).
    const { expr, cond } = fc.letrec<{ expr: string; cond: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('p', 'c', 'len', 'cr', 'cc', 'cc1h', '0', '1', '2.5', '1e3', 'param("n")', 'header("x")', 'image_count'),
        fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '**', '??'), tie('expr')).map(([a, op, b]) => `(${a} ${op} ${b})`),
        fc.tuple(tie('cond'), tie('expr'), tie('expr')).map(([t, a, b]) => `(${t} ? ${a} : ${b})`),
        fc.tuple(fc.constantFrom('max', 'min'), tie('expr'), tie('expr')).map(([f, a, b]) => `${f}(${a}, ${b})`),
        fc.tuple(fc.constantFrom('abs', 'ceil', 'floor'), tie('expr')).map(([f, a]) => `${f}(${a})`),
        tie('expr').map((a) => `tier("t", ${a})`),
        tie('expr').map((a) => `-${a}`),
      ),
      cond: fc.oneof(
        fc.tuple(tie('expr'), fc.constantFrom('<', '<=', '>', '>=', '==', '!='), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
        fc.constantFrom('true', 'header("x") contains "a"', 'param("n") in [1, 2]', 'param("s") matches "^a"', 'hour("UTC") < 12'),
        fc.tuple(tie('cond'), fc.constantFrom('&&', '||'), tie('cond')).map(([a, op, b]) => `(${a} ${op} ${b})`),
        tie('cond').map((a) => `!(${a})`),
      ),
    }));
    // fixed() only in the shape new-api accepts: a pricing tree of tier() leaves, times request multipliers.
    const requestRule = fc.constantFrom('header("x") contains "a"', 'param("n") in [1, 2]', 'hour("UTC") < 12', 'param("q") == "high"');
    const noTier = (text: string) => !text.includes('tier(');
    const perRequest = fc
      .tuple(cond.filter(noTier), expr.filter(noTier), requestRule)
      .map(([test, leaf, rule]) => `(${test} ? tier("a", fixed(0.01)) : tier("b", ${leaf})) * (${rule} ? 2 : 1) * image_count`);
    /** Runs generated programs; the number that compiled. */
    const runAll = (programs: fc.Arbitrary<string>, numRuns: number) => {
      let compiled = 0;
      fc.assert(
        fc.property(programs, tokens, request, (source, values, facts) => {
          const program = (() => {
            try {
              return compileBillingExpr(source);
            } catch (error) {
              if (!(error instanceof BillingExprError)) throw error;
              return undefined;
            }
          })();
          if (!program) return;
          compiled++;
          onlyExpressionErrors(() => {
            const { cost } = runBillingExpr(program, values, facts);
            expect(Number.isFinite(cost) && cost >= 0).toBe(true);
          });
        }),
        { numRuns },
      );
      return compiled;
    };
    expect(runAll(expr, 2000)).toBeGreaterThan(1500);
    // Every one of these has the shape, so every one compiles.
    expect(runAll(perRequest, 500)).toBe(500);
  });
});
