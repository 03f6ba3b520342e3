/**
 * The syntax of new-api's billing expressions (`billing_setting.billing_expr`), which are expr-lang programs:
 * numbers, strings, true/false/nil, the token variables, calls of the billing functions, arithmetic, comparisons,
 * `contains`/`startsWith`/`endsWith`/`matches`/`in`, `&&`/`||`/`!` (and `and`/`or`/`not`), `??` and `?:`.
 * Parsed once into a tree (evaluate.ts runs it); anything else is a BillingExprError naming the place.
 */

export type ExprNode =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'nil' }
  | { kind: 'array'; items: ExprNode[] }
  | { kind: 'var'; name: string }
  | { kind: 'call'; name: string; args: ExprNode[] }
  | { kind: 'unary'; op: '-' | '+' | '!'; arg: ExprNode }
  | { kind: 'binary'; op: string; left: ExprNode; right: ExprNode }
  | { kind: 'cond'; test: ExprNode; then: ExprNode; else: ExprNode };

export class BillingExprError extends Error {}

type Token =
  | { type: 'num'; value: number; at: number }
  | { type: 'str'; value: string; at: number }
  | { type: 'name'; value: string; at: number }
  | { type: 'op'; value: string; at: number }
  | { type: 'end'; at: number };

/** Longest first, so `**` is not read as two `*`. */
const OPERATORS = [
  '**',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '<',
  '>',
  '!',
  '?',
  ':',
  '(',
  ')',
  '[',
  ']',
  ',',
];
/** Binary operators and how tightly they bind (expr-lang's table); `**`/`^` group from the right. */
/** Binary operators and how tightly they bind (expr-lang's table). */
export const BINARY: Readonly<Record<string, number>> = {
  '||': 10,
  or: 10,
  '&&': 15,
  and: 15,
  '==': 20,
  '!=': 20,
  '<': 20,
  '>': 20,
  '<=': 20,
  '>=': 20,
  in: 20,
  matches: 20,
  contains: 20,
  startsWith: 20,
  endsWith: 20,
  '+': 30,
  '-': 30,
  '*': 60,
  '/': 60,
  '%': 60,
  '**': 100,
  '^': 100,
  '??': 500,
};
const UNARY: Readonly<Record<string, { op: '-' | '+' | '!'; precedence: number }>> = {
  '!': { op: '!', precedence: 50 },
  not: { op: '!', precedence: 50 },
  '-': { op: '-', precedence: 90 },
  '+': { op: '+', precedence: 90 },
};
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '0': '\0' };
/** Deeper nesting than any price needs: a bound on the parser's and the evaluator's recursion. */
const MAX_DEPTH = 64;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const at = i;
    const number = /^(?:\d[\d_]*(?:\.\d[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/.exec(source.slice(i));
    if (number) {
      const value = Number(number[0].replace(/_/g, ''));
      if (!Number.isFinite(value)) throw new BillingExprError(`bad number at ${at}`);
      tokens.push({ type: 'num', value, at });
      i += number[0].length;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      let value = '';
      i++;
      while (i < source.length && source[i] !== ch) {
        if (source[i] === '\\' && ch !== '`') {
          const next = source[i + 1] ?? '';
          if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
            value += String.fromCharCode(Number.parseInt(source.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          if (!(next in ESCAPES)) throw new BillingExprError(`bad escape \\${next} at ${i}`);
          value += ESCAPES[next];
          i += 2;
          continue;
        }
        value += source[i];
        i++;
      }
      if (i >= source.length) throw new BillingExprError(`unterminated string at ${at}`);
      i++;
      tokens.push({ type: 'str', value, at });
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i));
    if (name) {
      tokens.push({ type: 'name', value: name[0], at });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (!op) throw new BillingExprError(`unexpected character ${JSON.stringify(ch)} at ${at}`);
    tokens.push({ type: 'op', value: op, at });
    i += op.length;
  }
  tokens.push({ type: 'end', at: source.length });
  return tokens;
}

/** The expression as a tree; throws a BillingExprError for anything that is not a well-formed expression. */
export function parseBillingExpr(source: string): ExprNode {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const describe = (token: Token) => (token.type === 'end' ? 'the end' : `${JSON.stringify(String(token.value))} at ${token.at}`);
  const isOp = (value: string) => {
    const token = peek();
    return token.type === 'op' && token.value === value;
  };
  const expect = (value: string) => {
    if (!isOp(value)) throw new BillingExprError(`expected ${JSON.stringify(value)}, found ${describe(peek())}`);
    pos++;
  };
  const binaryOf = (token: Token): string | undefined =>
    (token.type === 'op' || token.type === 'name') && Object.hasOwn(BINARY, token.value) ? token.value : undefined;

  function conditional(depth: number): ExprNode {
    if (depth > MAX_DEPTH) throw new BillingExprError('the expression is nested too deeply');
    const test = binary(0, depth + 1);
    if (!isOp('?')) return test;
    pos++;
    const then = conditional(depth + 1);
    expect(':');
    return { kind: 'cond', test, then, else: conditional(depth + 1) };
  }

  function binary(minimum: number, depth: number): ExprNode {
    if (depth > MAX_DEPTH) throw new BillingExprError('the expression is nested too deeply');
    let left = unary(depth + 1);
    for (;;) {
      const op = binaryOf(peek());
      if (op === undefined || BINARY[op]! < minimum) return left;
      pos++;
      const precedence = BINARY[op]!;
      const rightAssociative = op === '**' || op === '^';
      const right = binary(rightAssociative ? precedence : precedence + 1, depth + 1);
      left = { kind: 'binary', op: op === 'or' ? '||' : op === 'and' ? '&&' : op === '^' ? '**' : op, left, right };
    }
  }

  function unary(depth: number): ExprNode {
    const token = peek();
    if ((token.type === 'op' || token.type === 'name') && Object.hasOwn(UNARY, token.value)) {
      pos++;
      const { op, precedence } = UNARY[token.value]!;
      return { kind: 'unary', op, arg: binary(precedence, depth + 1) };
    }
    return primary(depth);
  }

  function list(close: string, depth: number): ExprNode[] {
    const items: ExprNode[] = [];
    if (isOp(close)) {
      pos++;
      return items;
    }
    for (;;) {
      items.push(conditional(depth + 1));
      if (isOp(close)) {
        pos++;
        return items;
      }
      expect(',');
    }
  }

  function primary(depth: number): ExprNode {
    const token = peek();
    pos++;
    if (token.type === 'num') return { kind: 'num', value: token.value };
    if (token.type === 'str') return { kind: 'str', value: token.value };
    if (token.type === 'op' && token.value === '(') {
      const inner = conditional(depth + 1);
      expect(')');
      return inner;
    }
    if (token.type === 'op' && token.value === '[') return { kind: 'array', items: list(']', depth) };
    if (token.type === 'name') {
      if (token.value === 'true' || token.value === 'false') return { kind: 'bool', value: token.value === 'true' };
      if (token.value === 'nil') return { kind: 'nil' };
      if (isOp('(')) {
        pos++;
        return { kind: 'call', name: token.value, args: list(')', depth) };
      }
      return { kind: 'var', name: token.value };
    }
    throw new BillingExprError(`unexpected ${describe(token)}`);
  }

  const tree = conditional(0);
  if (peek().type !== 'end') throw new BillingExprError(`unexpected ${describe(peek())}`);
  return tree;
}
