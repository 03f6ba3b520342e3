import type { ChannelView } from '../../contracts';
import { channelTypeInfo } from '../../contracts';
import type { ChannelPayload, CreateMode } from './api';

/** The drawer's editable state; lists are arrays here and comma strings on the wire. */
export interface ChannelForm {
  type: number;
  name: string;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  status_code_mapping: string;
  param_override: string;
  header_override: string;
  test_model: string;
  auto_ban: boolean;
  priority: number;
  weight: number;
  tag: string;
  remark: string;
  /** Add only: one channel per key line (batch), or one channel holding every line (multi-key). */
  keyMode: 'single' | 'batch' | 'multi';
  multiKeyMode: 'random' | 'polling';
  /** The stored other settings (JSON text), kept as they are apart from what the drawer edits. */
  settings: string;
  /** Vertex AI (41): new-api's `vertex_key_type`, a service-account JSON key file or an express-mode API key. */
  vertexKeyType: VertexKeyType;
}

export type VertexKeyType = 'json' | 'api_key';
export const VERTEX_AI = 41;

/** spec 001 §9: type 1, group default, auto-ban on, priority and weight 0. */
export function emptyForm(): ChannelForm {
  return {
    type: 1,
    name: '',
    key: '',
    base_url: '',
    other: '',
    openai_organization: '',
    models: [],
    groups: ['default'],
    model_mapping: '',
    status_code_mapping: '',
    param_override: '',
    header_override: '',
    test_model: '',
    auto_ban: true,
    priority: 0,
    weight: 0,
    tag: '',
    remark: '',
    keyMode: 'single',
    multiKeyMode: 'random',
    settings: '',
    vertexKeyType: 'json',
  };
}

const split = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function formFromChannel(channel: ChannelView): ChannelForm {
  return {
    ...emptyForm(),
    type: channel.type,
    name: channel.name,
    base_url: channel.base_url ?? '',
    other: channel.other ?? '',
    openai_organization: channel.openai_organization ?? '',
    models: split(channel.models ?? ''),
    groups: split(channel.group ?? ''),
    model_mapping: prettyJson(channel.model_mapping),
    status_code_mapping: prettyJson(channel.status_code_mapping),
    param_override: prettyJson(channel.param_override),
    header_override: prettyJson(channel.header_override),
    test_model: channel.test_model ?? '',
    auto_ban: channel.auto_ban !== 0,
    priority: channel.priority,
    weight: channel.weight,
    tag: channel.tag ?? '',
    remark: channel.remark ?? '',
    settings: channel.settings ?? '',
    vertexKeyType: parseSettings(channel.settings ?? '').vertex_key_type === 'api_key' ? 'api_key' : 'json',
  };
}

/** The text's JSON object, or undefined when it is not one (not JSON, or an array, a string, null...). */
function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The other settings as an object; anything that is not a JSON object reads as none. */
const parseSettings = (text: string): Record<string, unknown> => jsonObjectOf(text) ?? {};

/** The other settings to save: the stored ones with the drawer's Vertex key type in them (new-api leaves json out). */
function settingsToSave(form: ChannelForm): string {
  const { vertex_key_type: _dropped, ...rest } = parseSettings(form.settings);
  const settings = form.vertexKeyType === 'api_key' ? { ...rest, vertex_key_type: 'api_key' } : rest;
  return Object.keys(settings).length > 0 ? JSON.stringify(settings) : '';
}

function prettyJson(text: string | null | undefined): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A JSON text field is empty or one JSON object. */
export function isJsonObjectText(text: string): boolean {
  return !text.trim() || jsonObjectOf(text) !== undefined;
}

/** The message keys (admin namespace) a form can be refused with before it is sent. */
export type FormProblem =
  | 'channels.error.nameAndKey'
  | 'channels.error.models'
  | 'channels.error.modelMapping'
  | 'channels.error.json'
  | 'channels.error.priority'
  | 'channels.error.weight'
  | 'channels.error.duplicateModels';

/** Client-side checks of spec 001 §5; the server repeats them with the same messages. */
export function validateForm(form: ChannelForm, creating: boolean): FormProblem | null {
  if (creating && (!form.name.trim() || !form.key.trim())) return 'channels.error.nameAndKey';
  if (form.models.length === 0) return 'channels.error.models';
  if (new Set(form.models).size !== form.models.length) return 'channels.error.duplicateModels';
  if (!isJsonObjectText(form.model_mapping)) return 'channels.error.modelMapping';
  if (![form.status_code_mapping, form.param_override, form.header_override].every(isJsonObjectText)) return 'channels.error.json';
  if (!Number.isInteger(form.priority) || form.priority < -999) return 'channels.error.priority';
  if (!Number.isInteger(form.weight) || form.weight < 0) return 'channels.error.weight';
  return null;
}

/** Adds custom model names ("a, b") to the list; names already there are reported, not added twice. */
export function addCustomModels(current: string[], text: string): { models: string[]; duplicates: string[] } {
  const models = [...current];
  const duplicates: string[] = [];
  for (const name of split(text)) {
    if (models.includes(name)) duplicates.push(name);
    else models.push(name);
  }
  return { models, duplicates };
}

/** The base URL as stored: trimmed, without trailing slashes. */
export const normaliseBaseUrl = (url: string) => url.trim().replace(/\/+$/, '');

/** A base URL ending in /v1 usually doubles the path (the gateway adds /v1 itself): the drawer asks first. */
export const endsWithV1 = (url: string) => /\/v1$/.test(normaliseBaseUrl(url));

const compactJson = (text: string) => (text.trim() ? JSON.stringify(JSON.parse(text)) : '');

/** new-api's create body: `{mode, multi_key_mode, channel}`; an edit sends only `channel`. */
export interface CreateBody {
  mode: CreateMode;
  multi_key_mode?: 'random' | 'polling';
  channel: ChannelPayload;
}

export function toPayload(form: ChannelForm, id?: number): CreateBody {
  const info = channelTypeInfo(form.type);
  const channel: ChannelPayload = {
    ...(id ? { id } : {}),
    type: form.type,
    name: form.name.trim(),
    base_url: normaliseBaseUrl(form.base_url),
    other: form.other.trim() || info?.otherDefault || '',
    openai_organization: form.openai_organization.trim(),
    models: form.models.join(','),
    group: form.groups.join(','),
    model_mapping: compactJson(form.model_mapping),
    status_code_mapping: compactJson(form.status_code_mapping),
    param_override: compactJson(form.param_override),
    header_override: compactJson(form.header_override),
    test_model: form.test_model.trim(),
    auto_ban: form.auto_ban ? 1 : 0,
    priority: form.priority,
    weight: form.weight,
    tag: form.tag.trim(),
    remark: form.remark.trim(),
  };
  // On edit an empty key keeps the stored one.
  if (form.key.trim()) channel.key = form.key.trim();
  if (form.type === VERTEX_AI) channel.settings = settingsToSave(form);
  const mode: CreateMode = form.keyMode === 'batch' ? 'batch' : form.keyMode === 'multi' ? 'multi_to_single' : 'single';
  return mode === 'multi_to_single' ? { mode, multi_key_mode: form.multiKeyMode, channel } : { mode, channel };
}
