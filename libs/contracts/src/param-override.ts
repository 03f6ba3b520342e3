import { goRegExp } from './go-regexp.js';

/**
 * The shape of new-api's param override operations form (`{"operations": [...]}`), checked when a channel is
 * saved so a typo is refused there rather than failing every relayed call (the relay runs them).
 */
export const PARAM_OVERRIDE_MODES = [
  'set',
  'delete',
  'move',
  'copy',
  'prepend',
  'append',
  'trim_prefix',
  'trim_suffix',
  'ensure_prefix',
  'ensure_suffix',
  'trim_space',
  'to_lower',
  'to_upper',
  'replace',
  'regex_replace',
  'return_error',
  'prune_objects',
  'set_header',
  'delete_header',
  'copy_header',
  'move_header',
  'pass_headers',
  'sync_fields',
] as const;

export const PARAM_OVERRIDE_CONDITION_MODES = ['full', 'prefix', 'suffix', 'contains', 'gt', 'gte', 'lt', 'lte'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function conditionsProblem(raw: unknown, where: string): string | undefined {
  if (raw === undefined) return undefined;
  if (isObject(raw)) return Object.keys(raw).some((k) => k.trim()) ? undefined : `${where}.conditions must name at least one path`;
  if (!Array.isArray(raw)) return `${where}.conditions must be an array or an object`;
  for (const [i, condition] of raw.entries()) {
    if (!isObject(condition) || typeof condition.path !== 'string' || !condition.path.trim())
      return `${where}.conditions[${i}] needs a path`;
    if (!PARAM_OVERRIDE_CONDITION_MODES.includes(String(condition.mode).toLowerCase() as never))
      return `${where}.conditions[${i}].mode must be one of ${PARAM_OVERRIDE_CONDITION_MODES.join(', ')}`;
  }
  return undefined;
}

/** The first problem of a param override's JSON text, or undefined when it is empty, flat or a valid operations form. */
export function paramOverrideProblem(text: string): string | undefined {
  if (!text.trim()) return undefined;
  const override: unknown = JSON.parse(text);
  if (!isObject(override) || !('operations' in override)) return undefined;
  const operations = override.operations;
  if (!Array.isArray(operations)) return 'operations must be an array';
  for (const [i, op] of operations.entries()) {
    const where = `operations[${i}]`;
    if (!isObject(op)) return `${where} must be an object`;
    if (!PARAM_OVERRIDE_MODES.includes(op.mode as never)) return `${where}.mode must be one of ${PARAM_OVERRIDE_MODES.join(', ')}`;
    if ((op.mode === 'move' || op.mode === 'copy' || op.mode === 'sync_fields') && (!op.from || !op.to))
      return `${where} (${op.mode}) needs from and to`;
    if (op.mode === 'regex_replace') {
      try {
        goRegExp(String(op.from ?? ''));
      } catch (error) {
        return `${where}.from is not a valid regular expression: ${(error as Error).message}`;
      }
    }
    const problem = conditionsProblem(op.conditions, where);
    if (problem) return problem;
  }
  return undefined;
}
