import { describe, expect, it } from 'vitest';
import { affinityRulesProblem, DEFAULT_AFFINITY_RULES } from './channel-affinity-rules.js';

const good = { name: 'r', model_regex: ['^gpt-'], key_sources: [{ type: 'gjson', path: 'user' }] };

describe('affinityRulesProblem', () => {
  it("accepts new-api's default rules and a minimal rule", () => {
    expect(affinityRulesProblem(DEFAULT_AFFINITY_RULES)).toBeUndefined();
    expect(affinityRulesProblem([good])).toBeUndefined();
    expect(affinityRulesProblem([])).toBeUndefined();
    expect(affinityRulesProblem([{ ...good, model_regex: ['(?i)^GPT-'], value_regex: '(?i)^conv' }])).toBeUndefined();
  });

  it('names the first problem', () => {
    expect(affinityRulesProblem({})).toBe('must be a JSON array of rules');
    expect(affinityRulesProblem([{ ...good, name: '' }])).toBe('rule 1.name is required');
    expect(affinityRulesProblem([{ ...good, name: 'a:b' }])).toBe("rule 1.name must not contain ':'");
    expect(affinityRulesProblem([{ ...good, model_regex: ['('] }])).toMatch(/^rule 1\.model_regex\[0\] is not a valid regular expression/);
    expect(affinityRulesProblem([{ ...good, key_sources: [] }])).toBe('rule 1.key_sources needs at least one source');
    expect(affinityRulesProblem([{ ...good, key_sources: [{ type: 'cookie' }] }])).toBe(
      'rule 1.key_sources[0].type must be one of context_int, context_string, request_header, gjson',
    );
    expect(affinityRulesProblem([{ ...good, key_sources: [{ type: 'request_header' }] }])).toBe(
      'rule 1.key_sources[0].key is required for request_header',
    );
    expect(affinityRulesProblem([{ ...good, key_sources: [{ type: 'context_int', key: 'secret' }] }])).toMatch(/key must be one of id, /);
    expect(affinityRulesProblem([{ ...good, ttl_seconds: -1 }])).toMatch(/ttl_seconds must be a whole number/);
    expect(affinityRulesProblem([{ ...good, skip_retry_on_failure: 'yes' }])).toBe('rule 1.skip_retry_on_failure must be true or false');
    expect(affinityRulesProblem([good, good])).toBe('rule 2: the name "r" is used twice');
  });
});
