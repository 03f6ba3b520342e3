import { describe, expect, it } from 'vitest';
import { paramOverrideProblem } from './param-override.js';

describe('paramOverrideProblem', () => {
  it('accepts an empty, a flat and a valid operations override', () => {
    expect(paramOverrideProblem('')).toBeUndefined();
    expect(paramOverrideProblem('{"temperature":0.2}')).toBeUndefined();
    const ops = [
      { mode: 'set', path: 'a', value: 1, conditions: [{ path: 'model', mode: 'PREFIX', value: 'gpt' }] },
      { mode: 'move', from: 'a', to: 'b', conditions: { stream: true } },
      { mode: 'regex_replace', path: 'model', from: '^x(\\d)$', to: 'y$1' },
    ];
    expect(paramOverrideProblem(JSON.stringify({ operations: ops }))).toBeUndefined();
  });

  it('names the first problem', () => {
    const problem = (operations: unknown) => paramOverrideProblem(JSON.stringify({ operations }));
    expect(problem({})).toBe('operations must be an array');
    expect(problem([{ mode: 'explode' }])).toMatch(/^operations\[0\]\.mode must be one of set, delete/);
    expect(problem([{ mode: 'copy', from: 'a' }])).toBe('operations[0] (copy) needs from and to');
    expect(problem([{ mode: 'regex_replace', path: 'm', from: '(' }])).toMatch(/^operations\[0\]\.from is not a valid regular expression/);
    expect(problem([{ mode: 'set', path: 'a', conditions: [{ path: 'x', mode: 'like' }] }])).toMatch(
      /conditions\[0\]\.mode must be one of full/,
    );
    expect(problem([{ mode: 'set', path: 'a', conditions: 'x' }])).toBe('operations[0].conditions must be an array or an object');
  });
});
