/**
 * A regular expression written for new-api (Go's RE2) as a JavaScript RegExp. The two agree on the common syntax;
 * the difference operators meet is a leading flag group such as `(?i)`, which JavaScript (before V8's inline
 * modifiers) refuses: it becomes the RegExp's flags. Throws SyntaxError like `new RegExp`.
 */
export function goRegExp(pattern: string, flags = ''): RegExp {
  const leading = /^\(\?([imsU]+)\)/.exec(pattern);
  if (!leading) return new RegExp(pattern, flags);
  if (leading[1]!.includes('U')) throw new SyntaxError(`Invalid regular expression: /${pattern}/: the U (ungreedy) flag is Go-only`);
  const extra = [...new Set(leading[1]!)].join('');
  return new RegExp(pattern.slice(leading[0].length), [...new Set(flags + extra)].join(''));
}
