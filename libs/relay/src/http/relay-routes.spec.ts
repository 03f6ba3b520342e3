import { describe, expect, it } from 'vitest';
import { matchRelayRoute } from './relay-routes.js';

describe('matchRelayRoute', () => {
  it('maps each relay route to its kind, with Express-like case and trailing-slash tolerance', () => {
    expect(matchRelayRoute('POST', '/v1/chat/completions')).toEqual({ kind: 'chat' });
    expect(matchRelayRoute('POST', '/V1/Messages/')).toEqual({ kind: 'messages' });
    expect(matchRelayRoute('POST', '/v1/responses/compact')).toEqual({ kind: 'responses_compact' });
    expect(matchRelayRoute('POST', '/v1/audio/transcriptions')).toEqual({ kind: 'audio_transcriptions' });
    expect(matchRelayRoute('GET', '/v1/chat/completions')).toBeUndefined();
  });

  it('reads the Gemini model and stream mode from the path, under /v1beta and /v1', () => {
    expect(matchRelayRoute('POST', '/v1beta/models/gemini-2.5-flash:generateContent')).toEqual({
      kind: 'gemini',
      route: { model: 'gemini-2.5-flash', stream: false },
    });
    expect(matchRelayRoute('POST', '/v1/models/gemini-2.5-pro:streamGenerateContent')).toEqual({
      kind: 'gemini',
      route: { model: 'gemini-2.5-pro', stream: true },
    });
    expect(matchRelayRoute('POST', '/v1beta/models/a%2Fb:generateContent')).toEqual({
      kind: 'gemini',
      route: { model: 'a/b', stream: false },
    });
    expect(matchRelayRoute('POST', '/v1beta/models/%E0%A4%A:generateContent')).toBeUndefined();
    expect(matchRelayRoute('POST', '/v1beta/models/x:countTokens')).toBeUndefined();
    expect(matchRelayRoute('POST', '/v1beta/models/models%2Fgemini-embedding-001:embedContent')).toEqual({
      kind: 'gemini_embeddings',
      route: { model: 'gemini-embedding-001', batch: false },
    });
    expect(matchRelayRoute('POST', '/v1/models/gemini-embedding-001:batchEmbedContents/')).toEqual({
      kind: 'gemini_embeddings',
      route: { model: 'gemini-embedding-001', batch: true },
    });
  });

  it('takes the legacy engines route and the unimplemented ones', () => {
    expect(matchRelayRoute('POST', '/v1/engines/text-embedding-3-small/embeddings')).toEqual({
      kind: 'embeddings',
      route: { model: 'text-embedding-3-small' },
    });
    for (const [method, path] of [
      ['GET', '/v1/files'],
      ['DELETE', '/v1/files/f'],
      ['POST', '/v1/fine-tunes/x/cancel'],
      ['POST', '/v1/images/variations'],
      ['DELETE', '/v1/models/m'],
    ]) {
      expect(matchRelayRoute(method, path!), path).toEqual({ notImplemented: true });
    }
    expect(matchRelayRoute('GET', '/v1/models/m')).toBeUndefined();
    expect(matchRelayRoute('GET', '/v1/filesystem')).toBeUndefined();
  });
});
