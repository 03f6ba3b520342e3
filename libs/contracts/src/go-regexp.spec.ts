import { describe, expect, it } from 'vitest';
import { goRegExp } from './go-regexp.js';

describe('goRegExp', () => {
  it("turns Go's leading flag group into RegExp flags", () => {
    expect(goRegExp('(?i)^gpt-').test('GPT-4o')).toBe(true);
    expect(goRegExp('(?is)a.b', 'g').flags).toBe('gis');
    expect(goRegExp('^claude-').test('Claude-3')).toBe(false);
    expect(() => goRegExp('(?U)a+')).toThrow(SyntaxError);
    expect(() => goRegExp('(')).toThrow(SyntaxError);
  });
});
