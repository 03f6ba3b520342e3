import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import type { OptionService } from '@gw/option';
import { relyingParty } from './relying-party.js';

const options = (values: Record<string, unknown>) =>
  ({
    get: (key: string) =>
      values[key] ??
      { SystemName: 'AI Gateway', ServerAddress: '', 'passkey.origins': '', 'passkey.rp_id': '', 'passkey.rp_display_name': '' }[key] ??
      false,
  }) as unknown as OptionService;
const request = (host: string, protocol = 'http') => ({ protocol, hostname: host.split(':')[0], get: () => host }) as unknown as Request;

describe('relyingParty', () => {
  it('takes the RP id and origin from ServerAddress, then the request', () => {
    expect(relyingParty(options({ ServerAddress: 'https://gw.example.com/' }), request('10.0.0.1:3000'))).toEqual({
      rpID: 'gw.example.com',
      rpName: 'AI Gateway',
      origins: ['https://gw.example.com'],
    });
    expect(relyingParty(options({}), request('localhost:3000'))).toMatchObject({ rpID: 'localhost', origins: ['http://localhost:3000'] });
  });

  it('prefers the configured RP id, name and origins', () => {
    const rp = relyingParty(
      options({
        'passkey.rp_id': 'example.com',
        'passkey.rp_display_name': 'Example',
        'passkey.origins': 'https://a.example.com, https://b.example.com\n',
      }),
      request('gw:3000'),
    );
    expect(rp).toEqual({ rpID: 'example.com', rpName: 'Example', origins: ['https://a.example.com', 'https://b.example.com'] });
  });

  it('refuses plain http off localhost unless insecure origins are allowed', () => {
    expect(() => relyingParty(options({ ServerAddress: 'http://gw.example.com' }), request('gw.example.com'))).toThrow(/https origin/);
    expect(
      relyingParty(options({ ServerAddress: 'http://gw.example.com', 'passkey.allow_insecure_origin': true }), request('x')).origins,
    ).toEqual(['http://gw.example.com']);
  });
});
