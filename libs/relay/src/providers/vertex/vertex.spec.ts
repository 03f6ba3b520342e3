import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import {
  CHAT_REQUEST,
  CLAUDE_BODY,
  CLAUDE_MODEL,
  CLAUDE_PATH,
  CLAUDE_STREAM_PATH,
  CLIENT_EMAIL,
  EXPRESS_API_KEY,
  EXPRESS_GEMINI_PATH,
  EXPRESS_GEMINI_STREAM_PATH,
  GEMINI_BODY,
  GEMINI_MODEL,
  GEMINI_PATH,
  GEMINI_STREAM_PATH,
  serviceAccountKey,
  testKeyPair,
  TOKEN_ERROR,
  TOKEN_RESPONSE,
} from '../../../../../test/fixtures/providers/vertex/index.js';
import { anthropicCodec } from '../anthropic/index.js';
import { geminiCodec } from '../gemini/index.js';
import { adaptorOf } from '../registry.js';
import { AdaptorAuthError, type AdaptorCall } from '../types.js';
import { AccessTokenCache, parseServiceAccount, vertexAdaptor, vertexClaudeModel, vertexRegion } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };
/** The test's token endpoint is on loopback: called as an operator allows it, with AllowPrivateOutboundUrls. */
const privateAllowed = { get: <T>(key: string) => (key === 'AllowPrivateOutboundUrls' ? true : undefined) as T };
const keys = testKeyPair();
let server: Server;
let tokenUri = '';
const posted: URLSearchParams[] = [];
let refuse = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/token' });
      res.end();
      return;
    }
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      posted.push(new URLSearchParams(text));
      res.writeHead(refuse ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(refuse ? TOKEN_ERROR : TOKEN_RESPONSE));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function call(
  model: string,
  stream = false,
  other = '',
  key = serviceAccountKey(keys.privateKey, tokenUri),
  options: AdaptorCall['settings'] = privateAllowed,
): AdaptorCall {
  const upstream = { id: 9, type: 41, key, baseUrl: '', other };
  return { channel: { id: 9, type: 41, other, upstream } as unknown as RelayChannel, model, stream, settings: options };
}

describe('Vertex AI adaptor (type 41)', () => {
  it('sends Gemini models to generateContent of publisher google in the region (default us-central1), Gemini body (fixture)', () => {
    const adaptor = vertexAdaptor.forModel!(GEMINI_MODEL, call(GEMINI_MODEL).channel);
    expect(adaptorOf(41)).toBe(vertexAdaptor);
    expect(adaptor.format).toBe('gemini');
    expect(adaptor.buildChatRequest(call(GEMINI_MODEL)).url).toBe(`https://us-central1-aiplatform.googleapis.com${GEMINI_PATH}`);
    expect(adaptor.buildChatRequest(call(GEMINI_MODEL, true)).url).toBe(
      `https://us-central1-aiplatform.googleapis.com${GEMINI_STREAM_PATH}`,
    );
    const native = geminiCodec.requestFromHub({ model: GEMINI_MODEL, ...CHAT_REQUEST }, GEMINI_MODEL, settings);
    // The Gemini codec adds its safety settings (gemini.safety_settings); the model and stream live in the URL.
    const body = adaptor.finishBody!(native, call(GEMINI_MODEL), true);
    expect(body).toMatchObject(GEMINI_BODY);
    expect(body).not.toHaveProperty('model');
  });

  it('sends Claude models to rawPredict of publisher anthropic with the name@date id and vertex-2023-10-16 (fixture)', () => {
    const adaptor = vertexAdaptor.forModel!(CLAUDE_MODEL, call(CLAUDE_MODEL).channel);
    expect(adaptor.format).toBe('anthropic');
    expect(adaptor.buildChatRequest(call(CLAUDE_MODEL, false, 'us-east5')).url).toBe(
      `https://us-east5-aiplatform.googleapis.com${CLAUDE_PATH}`,
    );
    expect(adaptor.buildChatRequest(call(CLAUDE_MODEL, true, '{"default":"us-east5"}')).url).toBe(
      `https://us-east5-aiplatform.googleapis.com${CLAUDE_STREAM_PATH}`,
    );
    const native = anthropicCodec.requestFromHub({ model: CLAUDE_MODEL, ...CHAT_REQUEST }, CLAUDE_MODEL, settings);
    expect(adaptor.finishBody!(native, call(CLAUDE_MODEL), true)).toEqual(CLAUDE_BODY);
  });

  it('reads the region from other (a region or a JSON map by model), never a host fragment', () => {
    expect(vertexRegion('', 'm')).toBe('us-central1');
    expect(vertexRegion('global', 'm')).toBe('global');
    expect(vertexRegion('{"default":"europe-west4","m":"asia-northeast1"}', 'm')).toBe('asia-northeast1');
    expect(vertexRegion('{"default":"europe-west4"}', 'x')).toBe('europe-west4');
    expect(vertexRegion('evil.com/x', 'm')).toBe('us-central1');
    expect(vertexClaudeModel('claude-sonnet-4@20250514')).toBe('claude-sonnet-4@20250514');
    expect(
      vertexAdaptor.forModel!(GEMINI_MODEL, call(GEMINI_MODEL).channel).buildChatRequest(call(GEMINI_MODEL, false, 'global')).url,
    ).toMatch(/^https:\/\/aiplatform\.googleapis\.com\/v1\/projects\/[^/]+\/locations\/global\//);
  });

  it('exchanges an RS256 JWT for an access token at the key file token_uri, once until it nears expiry', async () => {
    posted.length = 0;
    let now = 1_800_000_000_000;
    const cache = new AccessTokenCache(() => now);
    const account = parseServiceAccount(serviceAccountKey(keys.privateKey, tokenUri));
    expect(await cache.get(account, true)).toBe(TOKEN_RESPONSE.access_token);
    expect(await cache.get(account, true)).toBe(TOKEN_RESPONSE.access_token);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims, signature] = posted[0]!.get('assertion')!.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'a1b2c3d4e5f6' });
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toEqual({
      iss: CLIENT_EMAIL,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: tokenUri,
      iat: 1_800_000_000,
      exp: 1_800_003_600,
    });
    expect(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(keys.publicKey, Buffer.from(signature!, 'base64url'))).toBe(
      true,
    );
    now += 3599_000 - 60_000; // within the renewal margin: a new exchange
    await cache.get(account, true);
    expect(posted).toHaveLength(2);
  });

  it('authorizes calls with the bearer token; a refused exchange or a broken key is an AdaptorAuthError', async () => {
    const c = call(GEMINI_MODEL);
    const built = await vertexAdaptor.authorize!(vertexAdaptor.buildChatRequest(c), '{}', c);
    expect(built.headers.authorization).toBe(`Bearer ${TOKEN_RESPONSE.access_token}`);
    refuse = true;
    try {
      const other = call(GEMINI_MODEL, false, '', serviceAccountKey(testKeyPair().privateKey, tokenUri));
      await expect(vertexAdaptor.authorize!(vertexAdaptor.buildChatRequest(other), '{}', other)).rejects.toThrow(/Invalid JWT Signature/);
    } finally {
      refuse = false;
    }
    expect(() => vertexAdaptor.buildChatRequest(call(GEMINI_MODEL, false, '', 'not json'))).toThrow(AdaptorAuthError);
    expect(() => parseServiceAccount('{"project_id":"p"}')).toThrow(AdaptorAuthError);
  });

  it('posts to no token_uri on a private address unless AllowPrivateOutboundUrls is on, whenever the key was saved (threats S5)', async () => {
    posted.length = 0;
    const port = new URL(tokenUri).port;
    // A key the adaptor's shared cache holds no token for (a cached token calls nobody).
    const fresh = testKeyPair().privateKey;
    for (const uri of [
      tokenUri,
      `http://localhost:${port}/token`,
      `http://[::ffff:127.0.0.1]:${port}/token`,
      `http://2130706433:${port}/token`,
    ]) {
      const account = parseServiceAccount(serviceAccountKey(keys.privateKey, uri));
      await expect(new AccessTokenCache().get(account), uri).rejects.toThrow(
        'the Google token exchange failed: token_uri URL points to a private or reserved address',
      );
      const c = call(GEMINI_MODEL, false, '', serviceAccountKey(fresh, uri), settings);
      await expect(vertexAdaptor.authorize!(vertexAdaptor.buildChatRequest(c), '{}', c), uri).rejects.toThrow(AdaptorAuthError);
    }
    expect(posted).toHaveLength(0);
  });

  it('never follows a redirect from the token_uri', async () => {
    posted.length = 0;
    const account = parseServiceAccount(serviceAccountKey(keys.privateKey, tokenUri.replace('/token', '/moved')));
    await expect(new AccessTokenCache().get(account, true)).rejects.toThrow('the Google token exchange failed: status 302');
    expect(posted).toHaveLength(0);
  });

  describe('with vertex_key_type api_key (express mode)', () => {
    const express = (model: string, stream = false, other = 'global', key = EXPRESS_API_KEY): AdaptorCall => {
      const c = call(model, stream, other, key);
      return { ...c, channel: { ...c.channel, otherSettings: { vertex_key_type: 'api_key' } } };
    };

    it("calls Google's models on the express path with the key in x-goog-api-key, no token exchange", async () => {
      posted.length = 0;
      const c = express(GEMINI_MODEL);
      const adaptor = vertexAdaptor.forModel!(GEMINI_MODEL, c.channel);
      const built = await adaptor.authorize!(adaptor.buildChatRequest(c), '{}', c);
      expect(built.url).toBe(`https://aiplatform.googleapis.com${EXPRESS_GEMINI_PATH}`);
      expect(built.headers['x-goog-api-key']).toBe(EXPRESS_API_KEY);
      expect(built.headers).not.toHaveProperty('authorization');
      expect(built.url).not.toContain(EXPRESS_API_KEY);
      expect(adaptor.buildChatRequest(express(GEMINI_MODEL, true, 'us-central1')).url).toBe(
        `https://us-central1-aiplatform.googleapis.com${EXPRESS_GEMINI_STREAM_PATH}`,
      );
      expect(adaptor.embeddings!.buildRequest(express('gemini-embedding-001')).url).toBe(
        'https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-embedding-001:predict',
      );
      expect(posted).toHaveLength(0);
    });

    it('refuses Claude models (Google serves them to OAuth callers only) and an empty key, as key errors', () => {
      const claude = express(CLAUDE_MODEL);
      expect(() => vertexAdaptor.forModel!(CLAUDE_MODEL, claude.channel).buildChatRequest(claude)).toThrow(
        /Claude models on Vertex AI need a service-account key/,
      );
      expect(() => vertexAdaptor.buildChatRequest(express(GEMINI_MODEL, false, 'global', '  '))).toThrow(AdaptorAuthError);
    });
  });

  it("takes Google's own token endpoint, and the default when the key file names none", () => {
    const google = 'https://oauth2.googleapis.com/token';
    expect(parseServiceAccount(serviceAccountKey(keys.privateKey, google)).tokenUri).toBe(google);
    expect(parseServiceAccount(serviceAccountKey(keys.privateKey, '')).tokenUri).toBe(google);
  });
});

describe('Gemini clients on Vertex AI: functionResponse ids (new-api gemini.remove_function_response_id_enabled)', () => {
  const body = {
    contents: [
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'w', args: {} } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'w', response: { t: 1 } } }, { function_response: { id: 'c2', name: 'v' } }],
      },
    ],
  };
  const finish = (enabled: boolean | undefined, converted = false) => {
    const adaptor = adaptorOf(41)!.forModel!('gemini-2.5-flash', {} as RelayChannel);
    const settings = { get: <T>(key: string) => (key === 'gemini.remove_function_response_id_enabled' ? enabled : undefined) as T };
    return adaptor.finishBody!(structuredClone(body), { settings, model: 'gemini-2.5-flash' } as unknown as AdaptorCall, converted);
  };

  it("strips them from a Gemini client's request by default, and keeps them when turned off", () => {
    expect(finish(undefined).contents).toEqual([
      body.contents[0],
      { role: 'user', parts: [{ functionResponse: { name: 'w', response: { t: 1 } } }, { function_response: { name: 'v' } }] },
    ]);
    expect(finish(false).contents).toEqual(body.contents);
  });
});
