import { describe, expect, it } from 'vitest';
import { type AffinityRuleView, formToRule, newRuleForm, ruleToForm } from './affinity-rule-form';

describe('affinity rule form', () => {
  it('round-trips a rule with every field', () => {
    const rule: AffinityRuleView = {
      name: 'claude cli trace',
      model_regex: ['^claude-.*$', '(?i)^gpt-'],
      path_regex: ['/v1/messages'],
      user_agent_include: ['claude-cli'],
      key_sources: [
        { type: 'request_header', key: 'X-Claude-Code-Session-Id' },
        { type: 'gjson', path: 'metadata.user_id', nested_path: 'session_id' },
      ],
      value_regex: '',
      ttl_seconds: 600,
      param_override_template: { operations: [{ mode: 'pass_headers', value: ['Anthropic-Beta'] }] },
      skip_retry_on_failure: true,
      include_using_group: true,
      include_model_name: false,
      include_rule_name: true,
    };
    expect(formToRule(ruleToForm(rule), [])).toEqual({ rule });
  });

  it('builds a minimal rule from the new form and names each problem', () => {
    const form = {
      ...newRuleForm(),
      name: ' by user ',
      models: '^gpt-\n',
      sources: [{ type: 'context_int' as const, field: 'id', nested: '' }],
    };
    expect(formToRule(form, [])).toEqual({
      rule: {
        name: 'by user',
        model_regex: ['^gpt-'],
        key_sources: [{ type: 'context_int', key: 'id' }],
        value_regex: '',
        ttl_seconds: 0,
        skip_retry_on_failure: false,
        include_using_group: true,
        include_model_name: false,
        include_rule_name: true,
      },
    });
    expect(formToRule({ ...form, name: '' }, [])).toEqual({ problem: 'name' });
    expect(formToRule({ ...form, name: 'a:b' }, [])).toEqual({ problem: 'nameColon' });
    expect(formToRule(form, ['by user'])).toEqual({ problem: 'nameTaken' });
    expect(formToRule({ ...form, models: ' \n' }, [])).toEqual({ problem: 'models' });
    expect(formToRule({ ...form, paths: '(' }, [])).toEqual({ problem: 'regex' });
    expect(formToRule({ ...form, sources: [] }, [])).toEqual({ problem: 'sources' });
    expect(formToRule({ ...form, sources: [{ type: 'context_string', field: 'password', nested: '' }] }, [])).toEqual({
      problem: 'sourceField',
    });
    expect(formToRule({ ...form, template: '[1]' }, [])).toEqual({ problem: 'template' });
  });
});
