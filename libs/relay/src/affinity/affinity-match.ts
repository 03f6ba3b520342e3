import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { goRegExp } from '@gw/contracts';
import type { AffinityKeySource, AffinityRule } from '@gw/option';

/** What a rule reads of one request. */
export interface AffinityRequest {
  model: string;
  /** The URL path without the query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: unknown;
  /** The group the request is routed in (before `auto` is resolved), part of the key when a rule says so. */
  usingGroup: string;
  /** The caller fields context_int / context_string sources name (AFFINITY_CONTEXT_KEYS). */
  context: Readonly<Record<string, string | number | undefined>>;
}

/** What a context source reads of the caller. */
export interface AffinityCaller {
  userId: number;
  tokenId: number;
  tokenName: string;
  userGroup: string;
  requestedGroup: string;
  username: string;
}

/** The caller fields by the names new-api's context keys give them. */
export function affinityContextOf(who: AffinityCaller): AffinityRequest['context'] {
  return {
    id: who.userId,
    user_id: who.userId,
    token_id: who.tokenId,
    token_name: who.tokenName,
    group: who.userGroup,
    token_group: who.requestedGroup,
    username: who.username,
  };
}

/** A rule that matched a request, and the key its pin is stored under. */
export interface AffinityMatch {
  rule: AffinityRule;
  /** The pin's key: rule name, model and group as the rule includes them, then the value. */
  cacheKey: string;
  ttlSeconds: number;
  value: string;
  source: AffinityKeySource;
  /** First 8 hex digits of the value's SHA-1 (new-api's key_fp): the usage statistics' key. */
  fingerprint: string;
  /** The value shortened for logs: whole up to 12 characters, else its first and last 4. */
  hint: string;
  model: string;
  usingGroup: string;
  path: string;
}

interface CompiledRule {
  rule: AffinityRule;
  models: RegExp[];
  paths: RegExp[];
  agents: string[];
  value?: RegExp;
}

/** Longer values are stored by their SHA-256, so a client cannot fill the cache with megabyte keys. */
const MAX_RAW_KEY_LENGTH = 256;

const compiledRules = new WeakMap<readonly AffinityRule[], CompiledRule[]>();

function compile(patterns: readonly string[] | undefined): RegExp[] {
  const out: RegExp[] = [];
  for (const pattern of patterns ?? []) {
    if (!pattern) continue;
    try {
      out.push(goRegExp(pattern));
    } catch {
      // The option's check refuses bad patterns; one stored before that check is skipped, as new-api does.
    }
  }
  return out;
}

/** The rules with their patterns compiled once per stored value (the option service keeps the parsed array). */
function compiled(rules: readonly AffinityRule[]): CompiledRule[] {
  let out = compiledRules.get(rules);
  if (!out) {
    out = rules.map((rule) => ({
      rule,
      models: compile(rule.model_regex),
      paths: compile(rule.path_regex),
      agents: (rule.user_agent_include ?? []).map((s) => s.trim().toLowerCase()).filter(Boolean),
      value: rule.value_regex ? compile([rule.value_regex])[0] : undefined,
    }));
    compiledRules.set(rules, out);
  }
  return out;
}

/** Splits a gjson-style path on dots that are not escaped (`a.b\.c` is `a`, `b.c`). */
function pathSegments(path: string): string[] {
  return path
    .trim()
    .split(/(?<!\\)\./)
    .map((s) => s.replace(/\\\./g, '.'));
}

function walk(value: unknown, path: string): unknown {
  let at = value;
  for (const segment of pathSegments(path)) {
    if (Array.isArray(at) && /^\d+$/.test(segment)) at = at[Number(segment)];
    else if (typeof at === 'object' && at !== null && !Array.isArray(at) && Object.hasOwn(at, segment))
      at = (at as Record<string, unknown>)[segment];
    else return undefined;
  }
  return at;
}

/** A found value as text: strings trimmed, numbers and booleans printed, objects and arrays as JSON; null is none. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The value at `nested` inside `value`, itself JSON text (Claude Code's metadata.user_id) or an object. */
function nestedText(value: unknown, nested: string): string {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return '';
    }
  }
  if (typeof parsed !== 'object' || parsed === null) return '';
  return asText(walk(parsed, nested));
}

/** An own property only: a configured name such as `constructor` never reads an object's prototype. */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function sourceValue(source: AffinityKeySource, request: AffinityRequest): string {
  const nested = source.nested_path?.trim();
  let found: unknown;
  switch (source.type) {
    case 'request_header': {
      const raw = own(
        request.headers,
        String(source.key ?? '')
          .trim()
          .toLowerCase(),
      );
      found = Array.isArray(raw) ? raw[0] : raw;
      break;
    }
    case 'gjson':
      found = source.path ? walk(request.body, source.path) : undefined;
      break;
    case 'context_int': {
      const n = Number(own(request.context, String(source.key)));
      found = Number.isInteger(n) && n > 0 ? String(n) : undefined;
      break;
    }
    case 'context_string':
      found = own(request.context, String(source.key));
      break;
  }
  if (found === undefined || found === null) return '';
  return nested ? nestedText(typeof found === 'string' ? found.trim() : found, nested) : asText(found);
}

export function fingerprintOf(value: string): string {
  return createHash('sha1').update(value).digest('hex').slice(0, 8);
}

function hintOf(value: string): string {
  const flat = value.replace(/[\r\n]/g, ' ');
  return flat.length <= 12 ? flat : `${flat.slice(0, 4)}...${flat.slice(-4)}`;
}

function keyPart(value: string): string {
  return value.length <= MAX_RAW_KEY_LENGTH ? value : `sha256-${createHash('sha256').update(value).digest('hex')}`;
}

/**
 * The first rule that matches the request (model, then path, then user agent) and finds a value at one of its
 * key sources (tried in order) that passes its value pattern; later rules are tried when one finds no value.
 */
export function matchAffinity(
  rules: readonly AffinityRule[],
  defaultTtlSeconds: number,
  request: AffinityRequest,
): AffinityMatch | undefined {
  if (!request.model) return undefined;
  let agent: string | undefined;
  for (const c of compiled(rules)) {
    if (!c.models.some((re) => re.test(request.model))) continue;
    if (c.paths.length > 0 && !c.paths.some((re) => re.test(request.path))) continue;
    if (c.agents.length > 0) {
      agent ??= String(request.headers['user-agent'] ?? '').toLowerCase();
      if (!c.agents.some((part) => agent!.includes(part))) continue;
    }
    let value = '';
    let source: AffinityKeySource | undefined;
    for (const candidate of c.rule.key_sources) {
      value = sourceValue(candidate, request);
      if (value) {
        source = candidate;
        break;
      }
    }
    if (!value || !source) continue;
    if (c.value && !c.value.test(value)) continue;
    const { rule } = c;
    const parts: string[] = [];
    if (rule.include_rule_name && rule.name) parts.push(rule.name);
    if (rule.include_model_name) parts.push(request.model);
    if (rule.include_using_group && request.usingGroup) parts.push(request.usingGroup);
    parts.push(keyPart(value));
    return {
      rule,
      cacheKey: parts.join(':'),
      ttlSeconds: rule.ttl_seconds && rule.ttl_seconds > 0 ? rule.ttl_seconds : defaultTtlSeconds,
      value,
      source,
      fingerprint: fingerprintOf(value),
      hint: hintOf(value),
      model: request.model,
      usingGroup: request.usingGroup,
      path: request.path,
    };
  }
  return undefined;
}
