import { goRegExp } from '@gw/contracts';
import { type Condition, conditionsHold, OverrideConfigError, parseConditions } from './conditions.js';
import { copyHeader, deleteHeader, type HeaderState, headerValue, moveHeader, passHeaderNames, setHeader } from './header-ops.js';
import { deletePath, formatValue, getPath, type Json, PathError, putOwn, setPath } from './json-path.js';

/** One operation of new-api's `{"operations": [...]}` param override. */
export interface Operation {
  mode: string;
  path: string;
  value?: unknown;
  keep_origin: boolean;
  from: string;
  to: string;
  conditions: Condition[];
  logic: string;
}

/** `return_error`: the request is answered with this error instead of being sent. */
export class OverrideReturnError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly type: string,
    readonly skipRetry: boolean,
  ) {
    super(message);
  }
}

/** The operations of an override, or undefined when it has none (the legacy flat form). */
export function parseOperations(override: Record<string, unknown>): Operation[] | undefined {
  if (!('operations' in override)) return undefined;
  const raw = override.operations;
  if (!Array.isArray(raw)) throw new OverrideConfigError('operations must be an array');
  return raw.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new OverrideConfigError(`operation ${i + 1} must be an object`);
    const op = item as Record<string, unknown>;
    if (typeof op.mode !== 'string') throw new OverrideConfigError(`operation ${i + 1} has no mode`);
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      mode: op.mode,
      path: text(op.path),
      value: op.value,
      keep_origin: op.keep_origin === true,
      from: text(op.from),
      to: text(op.to),
      conditions: op.conditions === undefined ? [] : parseConditions(op.conditions),
      logic: typeof op.logic === 'string' ? op.logic : 'OR',
    };
  });
}

function stringAt(body: Json, path: string): string {
  const at = getPath(body, path);
  if (!at.found || typeof at.value !== 'string') throw new OverrideConfigError(`operation not supported for type at ${path}`);
  return at.value;
}

const toJson = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json;

/** prepend/append: to an array (a list value spreads), to a string, or merged into an object. */
function extend(body: Json, path: string, value: unknown, keepOrigin: boolean, before: boolean): Json {
  const at = getPath(body, path);
  const current = at.found ? at.value! : null;
  if (Array.isArray(current)) {
    const added = Array.isArray(value) ? toJson(value) : [toJson(value)];
    return setPath(body, path, before ? [...(added as Json[]), ...current] : [...current, ...(added as Json[])]);
  }
  if (typeof current === 'string') return setPath(body, path, before ? formatValue(value) + current : current + formatValue(value));
  if (typeof current === 'object' && current !== null) {
    const merged: Record<string, Json> = { ...current };
    for (const [key, item] of Object.entries((toJson(value) ?? {}) as Record<string, Json>)) {
      const own = Object.hasOwn(merged, key) ? merged[key] : undefined;
      if (!keepOrigin || own === undefined || own === null) putOwn(merged, key, item);
    }
    return setPath(body, path, merged);
  }
  throw new OverrideConfigError(`operation not supported for type at ${path}`);
}

/** Go regexp replacement templates (`${1}`, `${name}`) in JavaScript's syntax (`$1`, `$<name>`). */
function jsReplacement(template: string): string {
  return template.replace(/\$\{(\w+)\}/g, (_, name: string) => (/^\d+$/.test(name) ? `$${name}` : `$<${name}>`));
}

function returnError(value: unknown): OverrideReturnError {
  let message = '';
  let status = 400;
  let code = 'invalid_request';
  let type = 'invalid_request_error';
  let skipRetry = true;
  if (typeof value === 'string') message = value.trim();
  else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const raw = value as Record<string, unknown>;
    message = String(typeof raw.message === 'string' ? raw.message : typeof raw.msg === 'string' ? raw.msg : '').trim();
    if (raw.code !== undefined && String(raw.code).trim()) code = String(raw.code).trim();
    if (typeof raw.type === 'string' && raw.type.trim()) type = raw.type.trim();
    if (typeof raw.skip_retry === 'boolean') skipRetry = raw.skip_retry;
    const rawStatus = raw.status_code ?? raw.status;
    if (rawStatus !== undefined) {
      if (typeof rawStatus !== 'number' || !Number.isInteger(rawStatus))
        throw new OverrideConfigError('return_error status_code must be an integer');
      status = rawStatus;
    }
  } else if (value === undefined || value === null) throw new OverrideConfigError('return_error value is required');
  else throw new OverrideConfigError('return_error value must be string or object');
  if (!message) throw new OverrideConfigError('return_error message is required');
  if (status < 100 || status > 511) throw new OverrideConfigError(`return_error status code out of range: ${status}`);
  return new OverrideReturnError(message, status, code, type, skipRetry);
}

/** prune_objects: drops every object (not the root) inside `path` that the conditions match, recursively by default. */
function prune(body: Json, path: string, context: Json, value: unknown): Json {
  let conditions: Condition[] = [];
  let logic = 'AND';
  let recursive = true;
  if (typeof value === 'string' && value.trim()) conditions = [{ path: 'type', mode: 'full', value: value.trim() }];
  else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const raw = value as Record<string, unknown>;
    if (typeof raw.logic === 'string' && raw.logic.trim()) logic = raw.logic;
    if (typeof raw.recursive === 'boolean') recursive = raw.recursive;
    if (raw.conditions !== undefined) conditions.push(...parseConditions(raw.conditions));
    if (raw.where !== undefined) {
      if (typeof raw.where !== 'object' || raw.where === null || Array.isArray(raw.where))
        throw new OverrideConfigError('prune_objects where must be object');
      for (const [key, item] of Object.entries(raw.where)) if (key.trim()) conditions.push({ path: key.trim(), mode: 'full', value: item });
    }
    if (raw.type !== undefined) conditions.push({ path: 'type', mode: 'full', value: raw.type });
  } else
    throw new OverrideConfigError(
      value === undefined || value === null || value === ''
        ? 'prune_objects value is required'
        : 'prune_objects value must be string or object',
    );
  if (conditions.length === 0) throw new OverrideConfigError('prune_objects conditions are required');

  const visit = (node: Json, root: boolean): { node: Json; drop: boolean } => {
    if (Array.isArray(node)) {
      const kept: Json[] = [];
      for (const item of node) {
        const next = visit(item, false);
        if (!next.drop) kept.push(next.node);
      }
      return { node: kept, drop: false };
    }
    if (typeof node === 'object' && node !== null) {
      if (!root && conditionsHold(node, context, conditions, logic)) return { node, drop: true };
      if (!recursive) return { node, drop: false };
      for (const [key, item] of Object.entries(node)) {
        const next = visit(item, false);
        if (next.drop) delete node[key];
        else node[key] = next.node;
      }
    }
    return { node, drop: false };
  };
  const target = getPath(body, path);
  if (!target.found) return body;
  return setPath(body, path, visit(target.value!, true).node);
}

/** sync_fields targets: `json:path` (or `body:`, or a bare path), `header:name`, and `context:path` (read only). */
type SyncTarget = { kind: 'json' | 'header' | 'context'; key: string };

function syncTarget(spec: string): SyncTarget {
  const raw = spec.trim();
  if (!raw) throw new OverrideConfigError('sync_fields target is required');
  const colon = raw.indexOf(':');
  if (colon < 0) return { kind: 'json', key: raw };
  const kind = raw.slice(0, colon).trim().toLowerCase();
  const key = raw.slice(colon + 1).trim();
  if (!key) throw new OverrideConfigError(`sync_fields target key is required: ${raw}`);
  if (kind === 'json' || kind === 'body') return { kind: 'json', key };
  if (kind === 'header' || kind === 'context') return { kind, key };
  throw new OverrideConfigError(`sync_fields target prefix is invalid: ${raw}`);
}

function readTarget(body: Json, context: Json, headers: HeaderState, target: SyncTarget): Json | undefined {
  if (target.kind === 'header') return headerValue(headers, target.key);
  const at = getPath(target.kind === 'context' ? context : body, target.key);
  if (!at.found || at.value === null || (typeof at.value === 'string' && !at.value.trim())) return undefined;
  return at.value;
}

/** Fills whichever of the two targets is missing from the other (nothing when both or neither are set). */
function syncFields(body: Json, context: Json, headers: HeaderState, from: string, to: string): Json {
  const a = syncTarget(from);
  const b = syncTarget(to);
  const va = readTarget(body, context, headers, a);
  const vb = readTarget(body, context, headers, b);
  const write = (target: SyncTarget, value: Json): Json => {
    if (target.kind === 'json') return setPath(body, target.key, value);
    if (target.kind === 'header') setHeader(headers, target.key, value, false);
    return body;
  };
  if (va !== undefined && vb === undefined) return write(b, va);
  if (vb !== undefined && va === undefined) return write(a, vb);
  return body;
}

/** Runs one operation whose conditions held; returns the (possibly new) body. */
function run(op: Operation, body: Json, context: Json, headers: HeaderState): Json {
  const { path } = op;
  switch (op.mode) {
    case 'delete':
      deletePath(body, path);
      return body;
    case 'set':
      if (op.keep_origin && getPath(body, path).found) return body;
      return setPath(body, path, toJson(op.value));
    case 'move':
    case 'copy': {
      if (op.mode === 'copy' && (!op.from || !op.to)) throw new OverrideConfigError('copy from/to is required');
      const source = getPath(body, op.from);
      if (!source.found) throw new OverrideConfigError(`source path does not exist: ${op.from}`);
      const next = setPath(body, op.to, structuredClone(source.value!));
      if (op.mode === 'move') deletePath(next, op.from);
      return next;
    }
    case 'prepend':
    case 'append':
      return extend(body, path, op.value, op.keep_origin, op.mode === 'prepend');
    case 'trim_prefix':
    case 'trim_suffix': {
      const current = stringAt(body, path);
      if (op.value === undefined || op.value === null) throw new OverrideConfigError('trim value is required');
      const affix = formatValue(op.value);
      if (op.mode === 'trim_prefix') return setPath(body, path, current.startsWith(affix) ? current.slice(affix.length) : current);
      return setPath(body, path, affix && current.endsWith(affix) ? current.slice(0, -affix.length) : current);
    }
    case 'ensure_prefix':
    case 'ensure_suffix': {
      const current = stringAt(body, path);
      const affix = op.value === undefined || op.value === null ? '' : formatValue(op.value);
      if (!affix) throw new OverrideConfigError('ensure value is required');
      if (op.mode === 'ensure_prefix') return current.startsWith(affix) ? body : setPath(body, path, affix + current);
      return current.endsWith(affix) ? body : setPath(body, path, current + affix);
    }
    case 'trim_space':
      return setPath(body, path, stringAt(body, path).trim());
    case 'to_lower':
      return setPath(body, path, stringAt(body, path).toLowerCase());
    case 'to_upper':
      return setPath(body, path, stringAt(body, path).toUpperCase());
    case 'replace': {
      const current = stringAt(body, path);
      if (!op.from) throw new OverrideConfigError('replace from is required');
      return setPath(body, path, current.split(op.from).join(op.to));
    }
    case 'regex_replace': {
      const current = stringAt(body, path);
      if (!op.from) throw new OverrideConfigError('regex pattern is required');
      let pattern: RegExp;
      try {
        pattern = goRegExp(op.from, 'g');
      } catch (error) {
        throw new OverrideConfigError((error as Error).message);
      }
      return setPath(body, path, current.replace(pattern, jsReplacement(op.to)));
    }
    case 'return_error':
      throw returnError(op.value);
    case 'prune_objects':
      return prune(body, path, context, op.value);
    case 'set_header':
      setHeader(headers, path, op.value, op.keep_origin);
      return body;
    case 'delete_header':
      deleteHeader(headers, path);
      return body;
    case 'copy_header':
      copyHeader(headers, op.from.trim() || path, op.to.trim() || path, op.keep_origin);
      return body;
    case 'move_header':
      moveHeader(headers, op.from.trim() || path, op.to.trim() || path, op.keep_origin);
      return body;
    case 'pass_headers':
      for (const name of passHeaderNames(op.value)) copyHeader(headers, name, name, op.keep_origin);
      return body;
    case 'sync_fields':
      return syncFields(body, context, headers, op.from, op.to);
    default:
      throw new OverrideConfigError(`unknown operation: ${op.mode}`);
  }
}

/**
 * Runs the operations in order, each only when its conditions hold (read from the body, then the context, which
 * sees the header changes made so far). The body is changed in place; the result is the final body.
 */
export function runOperations(body: Json, operations: readonly Operation[], context: Record<string, Json>, headers: HeaderState): Json {
  let result = body;
  for (const op of operations) {
    context.header_override = headers.override;
    if (!conditionsHold(result, context, op.conditions, op.logic)) continue;
    try {
      result = run(op, result, context, headers);
    } catch (error) {
      if (error instanceof OverrideReturnError) throw error;
      const message = error instanceof PathError || error instanceof OverrideConfigError ? error.message : String(error);
      throw new OverrideConfigError(`operation ${op.mode} failed: ${message}`);
    }
  }
  return result;
}
