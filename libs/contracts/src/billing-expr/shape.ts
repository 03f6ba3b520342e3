import type { ExprNode } from './parse.js';

/** Whether `node` or anything under it satisfies `test`. */
function some(node: ExprNode, test: (node: ExprNode) => boolean): boolean {
  if (test(node)) return true;
  switch (node.kind) {
    case 'call':
      return node.args.some((arg) => some(arg, test));
    case 'array':
      return node.items.some((item) => some(item, test));
    case 'unary':
      return some(node.arg, test);
    case 'binary':
      return some(node.left, test) || some(node.right, test);
    case 'cond':
      return some(node.test, test) || some(node.then, test) || some(node.else, test);
    default:
      return false;
  }
}

const calls = (names: ReadonlySet<string>) => (node: ExprNode) => node.kind === 'call' && names.has(node.name);

/** The functions that read the request (or its time): a condition on one of them makes a request rule. */
const readsRequest = calls(new Set(['param', 'header', 'hour', 'minute', 'weekday', 'month', 'day']));
const prices = calls(new Set(['tier', 'fixed']));
const isFixed = calls(new Set(['fixed']));
/** Token counts (image_count is a number of pictures, a multiplier a fixed price may take). */
const readsTokens = (node: ExprNode) => node.kind === 'var' && node.name !== 'image_count';

/** The multiplier of a request rule, new-api's traced shape `<condition on the request> ? <number> : 1`, or undefined. */
export function ruleMultiplier(node: Extract<ExprNode, { kind: 'cond' }>): number | undefined {
  if (node.then.kind !== 'num' || node.else.kind !== 'num' || node.else.value !== 1) return undefined;
  return some(node.test, readsRequest) ? node.then.value : undefined;
}

function factors(node: ExprNode): ExprNode[] {
  return node.kind === 'binary' && node.op === '*' ? [...factors(node.left), ...factors(node.right)] : [node];
}

function treeProblem(node: ExprNode): string | undefined {
  if (node.kind === 'cond') {
    if (some(node.test, prices)) return 'a condition cannot hold tier() or fixed()';
    return treeProblem(node.then) ?? treeProblem(node.else);
  }
  if (node.kind !== 'call' || node.name !== 'tier') return 'with fixed(), every branch of the pricing tree ends in tier("name", …)';
  const leaf = node.args[1]!;
  if (isFixed(leaf)) return undefined;
  if (some(leaf, isFixed)) return 'fixed() is the whole price of its tier, tier("name", fixed(0.01)): not added to or multiplied by tokens';
  return some(leaf, prices) ? 'a tier cannot hold another tier' : undefined;
}

/**
 * Why an expression that calls fixed() has a shape new-api refuses, or undefined: it must be one pricing tree
 * (`?:` branches ending in tier()) times multipliers that read no tokens (request rules, image_count), each
 * request-priced leaf exactly `fixed(amount)`. So no fixed price plus tokens in one leaf, no tiers added together,
 * no fixed price multiplied by tokens. Expressions without fixed() keep the whole grammar.
 */
export function fixedShapeProblem(tree: ExprNode): string | undefined {
  const all = factors(tree);
  const trees = all.filter((factor) => some(factor, prices));
  if (trees.length !== 1)
    return 'with fixed(), the expression is one pricing tree times request multipliers (tiers are not added or multiplied together)';
  if (all.some((factor) => factor !== trees[0] && some(factor, readsTokens))) return 'a fixed() price cannot be multiplied by tokens';
  return treeProblem(trees[0]!);
}
