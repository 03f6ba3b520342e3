import { describe, expect, it } from 'vitest';
import { tokenUrisOf } from './token-uri.js';

const keyFile = (tokenUri: unknown) => ({ type: 'service_account', project_id: 'p', token_uri: tokenUri });

describe('tokenUrisOf', () => {
  it('reads the token_uri of a key file however the key field holds it', () => {
    const google = 'https://oauth2.googleapis.com/token';
    const inside = 'http://127.0.0.1:9/x';
    // One key file as downloaded (pretty-printed over many lines), a JSON array of them, or one per line.
    expect(tokenUrisOf(JSON.stringify(keyFile(inside), null, 2))).toEqual([inside]);
    expect(tokenUrisOf(JSON.stringify([keyFile(google), JSON.stringify(keyFile(inside)), keyFile(google)]))).toEqual([google, inside]);
    expect(tokenUrisOf(`${JSON.stringify(keyFile(google))}\n${JSON.stringify(keyFile(` ${inside} `))}`)).toEqual([google, inside]);
  });

  it('finds none in keys that are not key files, nor where the relay would use the default endpoint', () => {
    expect(tokenUrisOf('sk-plain-key')).toEqual([]);
    expect(tokenUrisOf('sk-one\nsk-two')).toEqual([]);
    expect(tokenUrisOf(JSON.stringify(keyFile('')))).toEqual([]);
    expect(tokenUrisOf(JSON.stringify(keyFile(42)))).toEqual([]);
    expect(tokenUrisOf('null')).toEqual([]);
  });
});
