import { describe, expect, it } from 'vitest';
import { redactKeys } from './redact.js';

const KEY = 'sk-proj-Abc123XyZ987qwertyUIOP456';

describe('redactKeys', () => {
  it('hides a key quoted whole', () => {
    const out = redactKeys(`Incorrect API key provided: ${KEY}. See docs.`, [KEY]);
    expect(out).toBe('Incorrect API key provided: ***. See docs.');
  });

  it('hides recognisable pieces of a key (a masked echo) and each key of a multi-key channel', () => {
    const other = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
    const message = `key ${KEY.slice(0, 12)}****${KEY.slice(-8)} rejected; also ${other.slice(5, 20)}`;
    const out = redactKeys(message, ['unrelated-key-000', KEY, other]);
    expect(out).toBe('key ********** rejected; also ***');
    for (const secret of [KEY, other]) for (let i = 0; i + 8 <= secret.length; i++) expect(out).not.toContain(secret.slice(i, i + 8));
  });

  it('leaves ordinary text alone and handles short keys whole only', () => {
    expect(redactKeys('The model is overloaded, retry later', [KEY])).toBe('The model is overloaded, retry later');
    expect(redactKeys('bad key sk-up-1 here, sk-up-12 too', ['sk-up-1'])).toBe('bad key *** here, ***2 too');
    expect(redactKeys('nothing', [])).toBe('nothing');
  });

  it('takes the secrets of a JSON (service account) key, not its field names', () => {
    const key = JSON.stringify({
      type: 'service_account',
      private_key_id: 'a1b2c3d4e5f6a7b8c9d0',
      client_email: 'x@y.iam.gserviceaccount.com',
    });
    const out = redactKeys('service_account a1b2c3d4e5f6a7b8c9d0 is disabled', [key]);
    expect(out).toBe('service_account *** is disabled');
  });

  it("leaves a JSON key's URLs and PEM armour alone (answers quote links) and hides its private key lines", () => {
    const keyLine = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
    const key = JSON.stringify({
      type: 'service_account',
      private_key: `-----BEGIN PRIVATE KEY-----\n${keyLine}\n-----END PRIVATE KEY-----\n`,
      token_uri: 'https://oauth2.googleapis.com/token',
    });
    const message = `see https://example.com and https://oauth2.googleapis.com/token; -----BEGIN PRIVATE KEY----- ${keyLine}`;
    expect(redactKeys(message, [key])).toBe(
      'see https://example.com and https://oauth2.googleapis.com/token; -----BEGIN PRIVATE KEY----- ***',
    );
  });

  it('hides each secret part of a multi-part key, not its region or API version (answers mention them)', () => {
    const key = 'AKIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY|us-east-1';
    const message = 'AKIAIOSFODNN7EXAMPLE may not call bedrock in us-east-1 (api-version 2024-02-01)';
    expect(redactKeys(message, [key, 'azure-secret-0123456789|2024-02-01'])).toBe(
      '*** may not call bedrock in us-east-1 (api-version 2024-02-01)',
    );
  });
});
