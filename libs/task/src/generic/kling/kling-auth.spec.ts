import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { klingBearer, klingPathPrefix } from './kling-auth.js';

describe('Kling authentication', () => {
  it('signs an HS256 JWT from accessKey|secretKey, valid 30 minutes from 5 s ago', () => {
    const token = klingBearer(' ak | sk ', 1_700_000_000);
    const [header, payload, signature] = token.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toEqual({ iss: 'ak', exp: 1_700_001_800, nbf: 1_699_999_995 });
    expect(signature).toBe(createHmac('sha256', 'sk').update(`${header}.${payload}`).digest('base64url'));
  });

  it('passes another gateway key as is, under /kling', () => {
    expect(klingBearer('sk-abc')).toBe('sk-abc');
    expect(klingPathPrefix('sk-abc')).toBe('/kling');
    expect(klingPathPrefix('ak|sk')).toBe('');
  });

  it('refuses a key without a secret', () => {
    expect(() => klingBearer('only-access')).toThrow(/accessKey\|secretKey/);
  });
});
