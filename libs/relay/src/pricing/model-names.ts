/**
 * new-api's FormatMatchingModelName: a few families share one price entry under a wildcard name, so a
 * channel need not list every parameterised variant (Gemini 2.5 thinking budgets, GPTs "gizmo" ids).
 */
export function matchingModelName(name: string): string {
  for (const family of ['gemini-2.5-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-pro']) {
    if (name.startsWith(family)) {
      if (name.includes('-thinking-')) return `${family}-thinking-*`;
      break;
    }
  }
  if (name.startsWith('gpt-4-gizmo')) return 'gpt-4-gizmo-*';
  if (name.startsWith('gpt-4o-gizmo')) return 'gpt-4o-gizmo-*';
  return name;
}

/** A map entry for the model: the exact name first, then new-api's normalised name. */
export function lookupModel<T>(map: Readonly<Record<string, T>>, model: string): T | undefined {
  if (Object.hasOwn(map, model)) return map[model];
  const normalised = matchingModelName(model);
  return normalised !== model && Object.hasOwn(map, normalised) ? map[normalised] : undefined;
}

/**
 * new-api's built-in completion ratios (getHardcodedCompletionModelRatio), used when the CompletionRatio
 * option has no entry for the model. Unlike new-api, an entry in the option always wins: new-api
 * "locks" some of these and ignores the operator's value, which surprises operators (issue corpus §11).
 */
export function builtInCompletionRatio(model: string): number {
  const name = matchingModelName(model);
  if (name.endsWith('-all') || name.endsWith('-gizmo-*')) return 2;
  if (name.startsWith('gpt-')) return gptCompletionRatio(name);
  if (name.startsWith('o1') || name.startsWith('o3')) return 4;
  if (name === 'chatgpt-4o-latest') return 3;
  if (/claude-(3|sonnet-4|opus-4|haiku-4|sonnet-5|opus-5)/.test(name)) return 5;
  if (name.startsWith('mistral-')) return 3;
  if (name.startsWith('gemini-')) return geminiCompletionRatio(name);
  if (name.startsWith('command')) return COMMAND_RATIOS[name] ?? 4;
  if (/^ERNIE-(Speed-|Lite-|Character|Functions)/.test(name)) return 2;
  return FIXED_RATIOS[name] ?? 1;
}

const COMMAND_RATIOS: Record<string, number> = { 'command-r': 3, 'command-r-plus': 5, 'command-r-08-2024': 4, 'command-r-plus-08-2024': 4 };
const FIXED_RATIOS: Record<string, number> = { 'llama2-70b-4096': 0.8 / 0.64, 'llama3-8b-8192': 2, 'llama3-70b-8192': 0.79 / 0.59 };

function gptCompletionRatio(name: string): number {
  if (name.startsWith('gpt-4o')) {
    if (name === 'gpt-4o-2024-05-13') return 3;
    return name.startsWith('gpt-4o-mini-tts') ? 20 : 4;
  }
  if (name.startsWith('gpt-5')) {
    if (!name.includes('.')) return 8;
    return name.startsWith('gpt-5.4-nano') ? 6.25 : 6;
  }
  if (name.startsWith('gpt-4.5-preview')) return 2;
  if (name.startsWith('gpt-4-turbo') || name.endsWith('gpt-4-1106') || name.endsWith('gpt-4-1105')) return 3;
  if (name.startsWith('gpt-3.5')) {
    if (name === 'gpt-3.5-turbo' || name.endsWith('0125')) return 3;
    return name.endsWith('1106') ? 2 : 4 / 3;
  }
  return 2;
}

function geminiCompletionRatio(name: string): number {
  if (name.startsWith('gemini-1.5') || name.startsWith('gemini-2.0')) return 4;
  if (name.startsWith('gemini-2.5-pro')) return 8;
  if (name.startsWith('gemini-2.5-flash-preview')) return name.endsWith('-nothinking') ? 4 : 3.5 / 0.15;
  if (name.startsWith('gemini-2.5-flash-lite')) return 4;
  if (name.startsWith('gemini-2.5-flash') || name.startsWith('gemini-robotics-er-1.5')) return 2.5 / 0.3;
  if (name.startsWith('gemini-3-pro')) return name.startsWith('gemini-3-pro-image') ? 60 : 6;
  return 4;
}
