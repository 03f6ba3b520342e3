import type { RelayKind, RouteFacts } from '../pipeline/relay-request.js';

/**
 * The relay's routes, in one table. Requests matched here are served straight off the Node HTTP server by
 * RelayEntry (token auth, billing and the log in RelayPipeline); everything else goes on to Express and
 * Nest: GET /v1/models[/:model] and GET /v1beta/models (ModelsController), /pg/* (PlaygroundController),
 * /dashboard/* and /v1/dashboard/* (the token lib's billing routes).
 *
 *   POST /v1/chat/completions                        OpenAI chat           → chat
 *   POST /v1/completions                             OpenAI completions    → completions
 *   POST /v1/embeddings                              OpenAI embeddings     → embeddings
 *   POST /v1/engines/{model}/embeddings              legacy embeddings     → embeddings
 *   POST /v1/responses, /v1/responses/compact        OpenAI Responses      → responses, responses_compact
 *   POST /v1/images/generations                      images (per call)     → images_generations
 *   POST /v1/audio/speech                            speech (binary)       → audio_speech
 *   POST /v1/images/edits                            multipart, per call   → images_edits
 *   POST /v1/audio/transcriptions, /translations     multipart, duration   → audio_transcriptions, audio_translations
 *   POST /v1/rerank                                  rerank (Jina shape)   → rerank
 *   POST /v1/moderations                             moderations           → moderations
 *   POST /v1/edits                                   legacy edits          → edits
 *   POST /v1/messages                                Anthropic Messages    → messages
 *   POST /v1beta/models/{model}:generateContent      Gemini                → gemini
 *   POST /v1beta/models/{model}:streamGenerateContent  (also under /v1/models/...)
 *   POST /v1beta/models/{model}:embedContent         Gemini embeddings     → gemini_embeddings
 *   POST /v1beta/models/{model}:batchEmbedContents     (also under /v1/models/...)
 *   *    /v1/files*, /v1/fine-tunes*, POST /v1/images/variations, DELETE /v1/models/{model}
 *                                                    501 api_not_implemented (as new-api)
 */
const POST_ROUTES = new Map<string, RelayKind>([
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/messages', 'messages'],
  ['/v1/responses', 'responses'],
  ['/v1/responses/compact', 'responses_compact'],
  ['/v1/images/generations', 'images_generations'],
  ['/v1/audio/speech', 'audio_speech'],
  ['/v1/images/edits', 'images_edits'],
  ['/v1/audio/transcriptions', 'audio_transcriptions'],
  ['/v1/audio/translations', 'audio_translations'],
  ['/v1/rerank', 'rerank'],
  ['/v1/moderations', 'moderations'],
  ['/v1/edits', 'edits'],
]);

/**
 * The table as route templates (`:model` for a path parameter), for whatever must enumerate every route:
 * the fuzz and authorization suites, which fail when a route has no expectation.
 */
export function relayRouteTemplates(): { method: 'POST'; path: string; kind: RelayKind }[] {
  return [
    ...[...POST_ROUTES].map(([path, kind]) => ({ method: 'POST' as const, path, kind })),
    { method: 'POST', path: '/v1/engines/:model/embeddings', kind: 'embeddings' },
    { method: 'POST', path: '/v1beta/models/:model:generateContent', kind: 'gemini' },
    { method: 'POST', path: '/v1beta/models/:model:streamGenerateContent', kind: 'gemini' },
    { method: 'POST', path: '/v1beta/models/:model:embedContent', kind: 'gemini_embeddings' },
    { method: 'POST', path: '/v1beta/models/:model:batchEmbedContents', kind: 'gemini_embeddings' },
  ];
}

const ENGINE_EMBEDDINGS = /^\/v1\/engines\/([^/]+)\/embeddings$/i;

/**
 * Gemini's actions (new-api serves these four; `:countTokens` is not served: new-api sends it on to
 * generateContent as a billed generation, so it stays a 404 here).
 */
const GEMINI = /^\/v1(?:beta)?\/models\/([^/:]+(?:\/[^/:]+)?):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;

export type RelayRoute = { kind: RelayKind; route?: RouteFacts } | { notImplemented: true };

const NOT_IMPLEMENTED: RelayRoute = { notImplemented: true };

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Express's matching: case-insensitive paths, one trailing slash allowed (Gemini's model name keeps its case). */
export function matchRelayRoute(method: string | undefined, path: string): RelayRoute | undefined {
  if (method === 'POST') {
    const exact = POST_ROUTES.get(path);
    if (exact) return { kind: exact };
  }
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const lower = trimmed.toLowerCase();
  if (method === 'POST') {
    const kind = POST_ROUTES.get(lower);
    if (kind) return { kind };
    const gemini = GEMINI.exec(trimmed);
    if (gemini) {
      const decoded = safeDecode(gemini[1]!);
      if (decoded === undefined) return undefined;
      const model = decoded.replace(/^models\//, '');
      const action = gemini[2]!;
      if (action === 'embedContent' || action === 'batchEmbedContents')
        return { kind: 'gemini_embeddings', route: { model, batch: action === 'batchEmbedContents' } };
      return { kind: 'gemini', route: { model, stream: action === 'streamGenerateContent' } };
    }
    const engine = ENGINE_EMBEDDINGS.exec(trimmed);
    if (engine) {
      const model = safeDecode(engine[1]!);
      return model === undefined ? undefined : { kind: 'embeddings', route: { model } };
    }
    if (lower === '/v1/images/variations') return NOT_IMPLEMENTED;
  }
  if (isUnder(lower, '/v1/files') || isUnder(lower, '/v1/fine-tunes')) return NOT_IMPLEMENTED;
  if (method === 'DELETE' && lower.startsWith('/v1/models/') && lower.length > '/v1/models/'.length) return NOT_IMPLEMENTED;
  return undefined;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
