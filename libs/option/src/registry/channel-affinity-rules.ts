import { AFFINITY_CONTEXT_KEYS, AFFINITY_KEY_SOURCE_TYPES, type AffinityKeySourceType, type AffinityRule, goRegExp } from '@gw/contracts';

export type { AffinityKeySource, AffinityRule } from '@gw/contracts';
export { AFFINITY_CONTEXT_KEYS };

/** new-api's two default rules: Codex CLI's prompt_cache_key on /v1/responses and Claude Code's session id on /v1/messages. */
export const DEFAULT_AFFINITY_RULES: AffinityRule[] = [
  {
    name: 'codex cli trace',
    model_regex: ['^gpt-.*$'],
    path_regex: ['/v1/responses'],
    key_sources: [{ type: 'gjson', path: 'prompt_cache_key' }],
    value_regex: '',
    ttl_seconds: 0,
    skip_retry_on_failure: true,
    include_using_group: true,
    include_rule_name: true,
  },
  {
    name: 'claude cli trace',
    model_regex: ['^claude-.*$', '^gpt-.*$'],
    path_regex: ['/v1/messages'],
    key_sources: [
      { type: 'request_header', key: 'X-Claude-Code-Session-Id' },
      { type: 'gjson', path: 'metadata.user_id', nested_path: 'session_id' },
    ],
    value_regex: '',
    ttl_seconds: 0,
    skip_retry_on_failure: true,
    include_using_group: true,
    include_rule_name: true,
  },
];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function regexProblem(pattern: unknown, where: string): string | undefined {
  if (typeof pattern !== 'string') return `${where} must be a string`;
  try {
    goRegExp(pattern);
    return undefined;
  } catch (error) {
    return `${where} is not a valid regular expression: ${(error as Error).message}`;
  }
}

function stringListProblem(value: unknown, where: string, regex: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return `${where} must be an array of strings`;
  for (const [i, item] of value.entries()) {
    const problem = regex ? regexProblem(item, `${where}[${i}]`) : typeof item === 'string' ? undefined : `${where}[${i}] must be a string`;
    if (problem) return problem;
  }
  return undefined;
}

function keySourceProblem(source: unknown, where: string): string | undefined {
  if (!isObject(source)) return `${where} must be an object`;
  const type = source.type;
  if (!AFFINITY_KEY_SOURCE_TYPES.includes(type as AffinityKeySourceType))
    return `${where}.type must be one of ${AFFINITY_KEY_SOURCE_TYPES.join(', ')}`;
  for (const field of ['key', 'path', 'nested_path'] as const)
    if (source[field] !== undefined && typeof source[field] !== 'string') return `${where}.${field} must be a string`;
  if (type === 'gjson' && !String(source.path ?? '').trim()) return `${where}.path is required for gjson`;
  if (type === 'request_header' && !String(source.key ?? '').trim()) return `${where}.key is required for request_header`;
  if ((type === 'context_int' || type === 'context_string') && !AFFINITY_CONTEXT_KEYS.includes(source.key as never))
    return `${where}.key must be one of ${AFFINITY_CONTEXT_KEYS.join(', ')}`;
  return undefined;
}

function ruleProblem(rule: unknown, where: string): string | undefined {
  if (!isObject(rule)) return `${where} must be an object`;
  if (typeof rule.name !== 'string' || !rule.name.trim()) return `${where}.name is required`;
  if (rule.name.includes(':')) return `${where}.name must not contain ':'`;
  if (!Array.isArray(rule.model_regex) || rule.model_regex.length === 0) return `${where}.model_regex needs at least one pattern`;
  const problem =
    stringListProblem(rule.model_regex, `${where}.model_regex`, true) ??
    stringListProblem(rule.path_regex, `${where}.path_regex`, true) ??
    stringListProblem(rule.user_agent_include, `${where}.user_agent_include`, false) ??
    (rule.value_regex ? regexProblem(rule.value_regex, `${where}.value_regex`) : undefined);
  if (problem) return problem;
  if (!Array.isArray(rule.key_sources) || rule.key_sources.length === 0) return `${where}.key_sources needs at least one source`;
  for (const [i, source] of rule.key_sources.entries()) {
    const sourceProblem = keySourceProblem(source, `${where}.key_sources[${i}]`);
    if (sourceProblem) return sourceProblem;
  }
  const ttl = rule.ttl_seconds;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > 30 * 86400))
    return `${where}.ttl_seconds must be a whole number of seconds from 0 to 2592000`;
  if (rule.param_override_template !== undefined && rule.param_override_template !== null && !isObject(rule.param_override_template))
    return `${where}.param_override_template must be a JSON object`;
  for (const flag of ['skip_retry_on_failure', 'include_using_group', 'include_model_name', 'include_rule_name'] as const)
    if (rule[flag] !== undefined && typeof rule[flag] !== 'boolean') return `${where}.${flag} must be true or false`;
  return undefined;
}

/** The option's check: a JSON array of valid rules with distinct names. */
export function affinityRulesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a JSON array of rules';
  const names = new Set<string>();
  for (const [i, rule] of value.entries()) {
    const problem = ruleProblem(rule, `rule ${i + 1}`);
    if (problem) return problem;
    const name = (rule as AffinityRule).name.trim();
    if (names.has(name)) return `rule ${i + 1}: the name "${name}" is used twice`;
    names.add(name);
  }
  return undefined;
}
