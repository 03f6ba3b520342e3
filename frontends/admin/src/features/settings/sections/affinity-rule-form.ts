import {
  AFFINITY_CONTEXT_KEYS,
  AFFINITY_KEY_SOURCE_TYPES,
  type AffinityKeySourceType,
  type AffinityRule,
  goRegExp,
} from '../../../contracts';

export { AFFINITY_KEY_SOURCE_TYPES as KEY_SOURCE_TYPES };

/** A stored rule, as the editor reads and writes it. */
export type AffinityRuleView = AffinityRule;

/** One key source row of the editor: `field` is the header or caller field, or the body path. */
export interface KeySourceRow {
  type: AffinityKeySourceType;
  field: string;
  nested: string;
}

/** The editor's fields: lists one entry per line, the template as JSON text. */
export interface AffinityRuleForm {
  name: string;
  models: string;
  paths: string;
  agents: string;
  sources: KeySourceRow[];
  valueRegex: string;
  ttl: number;
  template: string;
  skipRetry: boolean;
  includeGroup: boolean;
  includeModel: boolean;
  includeName: boolean;
}

/** The message keys (admin namespace, settings.affinity.rule.error.*) a form can be refused with. */
export type RuleProblem = 'name' | 'nameColon' | 'nameTaken' | 'models' | 'regex' | 'sources' | 'sourceField' | 'template';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

export const newRuleForm = (): AffinityRuleForm => ({
  name: '',
  models: '',
  paths: '',
  agents: '',
  sources: [{ type: 'gjson', field: '', nested: '' }],
  valueRegex: '',
  ttl: 0,
  template: '',
  skipRetry: false,
  includeGroup: true,
  includeModel: false,
  includeName: true,
});

export function ruleToForm(rule: AffinityRuleView): AffinityRuleForm {
  return {
    name: rule.name,
    models: (rule.model_regex ?? []).join('\n'),
    paths: (rule.path_regex ?? []).join('\n'),
    agents: (rule.user_agent_include ?? []).join('\n'),
    sources: (rule.key_sources ?? []).map((s) => ({
      type: (AFFINITY_KEY_SOURCE_TYPES as readonly string[]).includes(s.type) ? (s.type as AffinityKeySourceType) : 'gjson',
      field: (s.type === 'gjson' ? s.path : s.key) ?? '',
      nested: s.nested_path ?? '',
    })),
    valueRegex: rule.value_regex ?? '',
    ttl: rule.ttl_seconds ?? 0,
    template: rule.param_override_template ? JSON.stringify(rule.param_override_template, null, 2) : '',
    skipRetry: rule.skip_retry_on_failure === true,
    includeGroup: rule.include_using_group === true,
    includeModel: rule.include_model_name === true,
    includeName: rule.include_rule_name === true,
  };
}

function validRegex(pattern: string): boolean {
  try {
    goRegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** The rule a form describes, or the first problem; `otherNames` are the names of the other rules. */
export function formToRule(form: AffinityRuleForm, otherNames: readonly string[]): { rule: AffinityRuleView } | { problem: RuleProblem } {
  const name = form.name.trim();
  if (!name) return { problem: 'name' };
  if (name.includes(':')) return { problem: 'nameColon' };
  if (otherNames.includes(name)) return { problem: 'nameTaken' };
  const models = lines(form.models);
  if (models.length === 0) return { problem: 'models' };
  const paths = lines(form.paths);
  const valueRegex = form.valueRegex.trim();
  if (![...models, ...paths, ...(valueRegex ? [valueRegex] : [])].every(validRegex)) return { problem: 'regex' };
  if (form.sources.length === 0) return { problem: 'sources' };
  const sources: AffinityRuleView['key_sources'] = [];
  for (const row of form.sources) {
    const field = row.field.trim();
    if (!field) return { problem: 'sourceField' };
    if (row.type.startsWith('context_') && !(AFFINITY_CONTEXT_KEYS as readonly string[]).includes(field)) return { problem: 'sourceField' };
    const source: AffinityRuleView['key_sources'][number] =
      row.type === 'gjson' ? { type: row.type, path: field } : { type: row.type, key: field };
    if (row.nested.trim()) source.nested_path = row.nested.trim();
    sources.push(source);
  }
  let template: Record<string, unknown> | undefined;
  if (form.template.trim()) {
    try {
      const parsed: unknown = JSON.parse(form.template);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { problem: 'template' };
      template = parsed as Record<string, unknown>;
    } catch {
      return { problem: 'template' };
    }
  }
  const agents = lines(form.agents);
  return {
    rule: {
      name,
      model_regex: models,
      ...(paths.length > 0 ? { path_regex: paths } : {}),
      ...(agents.length > 0 ? { user_agent_include: agents } : {}),
      key_sources: sources,
      value_regex: valueRegex,
      ttl_seconds: Math.max(0, Math.floor(form.ttl || 0)),
      ...(template ? { param_override_template: template } : {}),
      skip_retry_on_failure: form.skipRetry,
      include_using_group: form.includeGroup,
      include_model_name: form.includeModel,
      include_rule_name: form.includeName,
    },
  };
}
