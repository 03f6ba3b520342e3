import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../errors/app-error.js';
import { idParam } from './id-param.pipe.js';

describe('idParam', () => {
  const pipe = idParam(() => new NotFoundError('user does not exist'));

  it('takes the ids a row can have', () => {
    expect(pipe.transform('1')).toBe(1);
    expect(pipe.transform('999999999')).toBe(999_999_999);
  });

  it.each(['0', '-1', '2147483648', '999999999999', '1.5', '1e3', '0x10', ' 1', 'abc', ''])('answers %j as not found', (raw) => {
    expect(() => pipe.transform(raw)).toThrow('user does not exist');
  });
});
