import { BINARY, type ExprNode } from './parse.js';

const UNARY_PRECEDENCE = 90;

/**
 * An expression tree as text, with the parentheses its structure needs: the canonical form of a request rule's
 * condition in the log (`param("service_tier") == "fast"`), whatever spacing the operator wrote.
 */
export function printExpr(node: ExprNode, parent = 0): string {
  switch (node.kind) {
    case 'num':
    case 'bool':
      return String(node.value);
    case 'str':
      return JSON.stringify(node.value);
    case 'nil':
      return 'nil';
    case 'array':
      return `[${node.items.map((item) => printExpr(item)).join(', ')}]`;
    case 'var':
      return node.name;
    case 'call':
      return `${node.name}(${node.args.map((arg) => printExpr(arg)).join(', ')})`;
    case 'unary':
      return `${node.op}${printExpr(node.arg, UNARY_PRECEDENCE)}`;
    case 'binary': {
      const precedence = BINARY[node.op] ?? 0;
      // `**` groups to the right, everything else to the left: the other side needs parentheses at equal strength.
      const right = node.op === '**';
      const text = `${printExpr(node.left, right ? precedence + 1 : precedence)} ${node.op} ${printExpr(node.right, right ? precedence : precedence + 1)}`;
      return precedence < parent ? `(${text})` : text;
    }
    case 'cond': {
      const text = `${printExpr(node.test, 1)} ? ${printExpr(node.then)} : ${printExpr(node.else)}`;
      return parent > 0 ? `(${text})` : text;
    }
  }
}
