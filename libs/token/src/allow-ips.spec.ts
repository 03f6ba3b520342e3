import { describe, expect, it } from 'vitest';
import { allowIpMatcher, invalidAllowIp, splitAllowIps } from './allow-ips.js';

describe('allow_ips', () => {
  it('splits on lines, commas and spaces', () => {
    expect(splitAllowIps('1.2.3.4\n10.0.0.0/8, ::1\r\n')).toEqual(['1.2.3.4', '10.0.0.0/8', '::1']);
    expect(splitAllowIps(null)).toEqual([]);
  });

  it('finds the first invalid entry', () => {
    expect(invalidAllowIp(['1.2.3.4', '10.0.0.0/8', '2001:db8::/32'])).toBeUndefined();
    expect(invalidAllowIp(['1.2.3.4', 'example.com'])).toBe('example.com');
    expect(invalidAllowIp(['10.0.0.0/33'])).toBe('10.0.0.0/33');
    expect(invalidAllowIp(['1.2.3'])).toBe('1.2.3');
  });

  it('allows everyone when empty', () => {
    expect(allowIpMatcher([])('8.8.8.8')).toBe(true);
  });

  it('matches single addresses and ranges, IPv4-mapped clients included', () => {
    const allowed = allowIpMatcher(['127.0.0.1', '10.1.0.0/16', '2001:db8::/32']);
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('::ffff:127.0.0.1')).toBe(true);
    expect(allowed('10.1.200.3')).toBe(true);
    expect(allowed('10.2.0.1')).toBe(false);
    expect(allowed('2001:db8::5')).toBe(true);
    expect(allowed('2001:db9::5')).toBe(false);
    expect(allowed('not-an-ip')).toBe(false);
  });
});
