import { describe, expect, it } from 'vitest';
import { scrubSecrets, scrubUrl } from './scrub.js';

describe('scrubSecrets', () => {
  it('keeps at most four characters of a key', () => {
    const out = scrubSecrets('token sk-AbCdEfGhIjKlMnOpQrStUvWx rejected');
    expect(out).toBe('token sk-AbCd… rejected');
    expect(scrubSecrets('anthropic sk-ant-api03-ZZZZYYYYXXXX')).toBe('anthropic sk-ant-api0…');
    expect(scrubSecrets('gemini AIzaSyA1234567890abcdefghij')).toBe('gemini AIza…');
  });

  it('hides bearer values, URL credentials, secret pairs and JSON fields', () => {
    expect(scrubSecrets('Authorization: Bearer abcdef123456')).toBe('Authorization: Bearer [redacted]');
    expect(scrubSecrets('connect redis://:hunter22@redis:6379 failed')).toBe('connect redis://:[redacted]@redis:6379 failed');
    expect(scrubSecrets('mysql://root:pa55word@db:3306/x')).toBe('mysql://root:[redacted]@db:3306/x');
    expect(scrubSecrets('GET /v1/models?key=abcd1234efgh')).toBe('GET /v1/models?key=[redacted]');
    expect(scrubSecrets('{"username":"a","password":"hunter2hunter2"}')).toBe('{"username":"a","password":"[redacted]"}');
  });

  it('leaves ordinary text alone', () => {
    const line = 'channel 3 disabled after 5 failures (status 429); model gpt-4o-mini';
    expect(scrubSecrets(line)).toBe(line);
  });
});

describe('scrubUrl', () => {
  it('masks credential parameters and keeps the rest', () => {
    expect(scrubUrl('/v1/chat/completions?key=sk-abc&x=1')).toBe('/v1/chat/completions?key=%5Bredacted%5D&x=1');
    expect(scrubUrl('/api/oauth/github?code=xyz&state=s1')).toBe('/api/oauth/github?code=%5Bredacted%5D&state=s1');
    expect(scrubUrl('/api/status')).toBe('/api/status');
    expect(scrubUrl('/api/token/search?keyword=abc')).toBe('/api/token/search?keyword=abc');
  });
});
