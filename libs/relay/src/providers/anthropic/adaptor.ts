import { buildProviderRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { maxTokensFor } from './request.js';

/** The API version new-api sends when the client gave none. */
export const ANTHROPIC_VERSION = '2023-06-01';
const THINKING_SUFFIX = '-thinking';
/** Anthropic's smallest thinking budget; it must also stay below max_tokens. */
const MIN_THINKING_BUDGET = 1024;
/** new-api's floor for max_tokens under the thinking adapter, leaving room above the smallest budget. */
const MIN_THINKING_MAX_TOKENS = 1280;

function clientHeader(call: AdaptorCall, name: string): string | undefined {
  const value = call.clientHeaders?.[name];
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/**
 * Anthropic Claude (type 14): POST {base}/v1/messages with `x-api-key` and `anthropic-version`. The
 * client's own anthropic-version and anthropic-beta headers are passed on; claude.model_headers_settings
 * adds per-model headers (beta flags) on top.
 */
export const anthropicAdaptor: ChannelAdaptor = {
  format: 'anthropic',
  buildChatRequest(call) {
    const headers: Record<string, string> = {
      'x-api-key': call.channel.upstream.key,
      'anthropic-version': clientHeader(call, 'anthropic-version') ?? ANTHROPIC_VERSION,
    };
    const beta = clientHeader(call, 'anthropic-beta');
    if (beta) headers['anthropic-beta'] = beta;
    const perModel = call.settings.get<Record<string, unknown>>('claude.model_headers_settings')?.[call.model];
    if (perModel && typeof perModel === 'object') {
      for (const [name, value] of Object.entries(perModel as Record<string, unknown>)) {
        const values = Array.isArray(value) ? value.filter((v) => typeof v === 'string') : typeof value === 'string' ? [value] : [];
        if (!values.length) continue;
        const merged = headers[name.toLowerCase()] ? [headers[name.toLowerCase()], ...values] : values;
        headers[name.toLowerCase()] = [
          ...new Set(
            merged
              .join(',')
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean),
          ),
        ].join(',');
      }
    }
    return buildProviderRequest(call.channel.upstream, '/v1/messages', headers, call.stream);
  },
  finishBody(body, call) {
    // The thinking adapter (claude.thinking_adapter_enabled): `<model>-thinking` calls <model> with extended
    // thinking on, its budget a share of max_tokens (claude.thinking_adapter_budget_tokens_percentage). As in
    // new-api, a missing max_tokens is the model's claude.default_max_tokens and is raised to at least 1280.
    const model = typeof body.model === 'string' ? body.model : call.model;
    if (!model.endsWith(THINKING_SUFFIX) || !call.settings.get<boolean>('claude.thinking_adapter_enabled')) return body;
    const maxTokens = Math.max(MIN_THINKING_MAX_TOKENS, maxTokensFor({ max_tokens: Number(body.max_tokens) || 0 }, model, call.settings));
    const share = Number(call.settings.get('claude.thinking_adapter_budget_tokens_percentage')) || 0.8;
    const out: Record<string, unknown> = { ...body, model: model.slice(0, -THINKING_SUFFIX.length), max_tokens: maxTokens };
    if (!out.thinking) out.thinking = { type: 'enabled', budget_tokens: thinkingBudget(maxTokens, share) };
    delete out.temperature;
    delete out.top_k;
    return out;
  },
};

/**
 * The adapter's budget: `share` of max_tokens, kept inside Anthropic's 1024 <= budget < max_tokens so a
 * share of 1 (or a small max_tokens) is not refused upstream. Callers pass max_tokens >= 1280.
 */
function thinkingBudget(maxTokens: number, share: number): number {
  return Math.min(maxTokens - 1, Math.max(MIN_THINKING_BUDGET, Math.floor(maxTokens * share)));
}
