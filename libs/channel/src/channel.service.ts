import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  BusinessError,
  OutboundUrlError,
  parseOutboundUrl,
  resolveOutbound,
  NotFoundError,
  parsePage,
  Role,
  toPage,
  type Principal,
} from '@gw/core';
import { channelTypeInfo, ChannelType, type ChannelInput, type CreateChannelRequest, type EditTagRequest } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { ChannelEntity, ChannelStatus } from './channel.entity.js';
import { ChannelRepository, type ChannelFilter, type ChannelSearch } from './channel.repository.js';
import { ChannelRouter } from './channel-router.js';
import {
  MESSAGES,
  parseBaseUrl,
  parseGroups,
  parseInteger,
  parseJsonField,
  parseParamOverride,
  parseModelList,
  parsePriority,
  parseWeight,
} from './channel-input.js';
import { toChannelView, type ChannelView } from './channel.view.js';
import { keysFromInput, newMultiKeyInfo, parseChannelInfo, updateMultiKeys } from './multi-key.js';
import { tokenUrisOf } from './token-uri.js';

type Query = Record<string, unknown>;

/**
 * The key column and channel_info of a multi-key channel after an edit: new keys appended or replacing
 * the list (`key_mode`), the mode switched (`multi_key_mode`). A single-key channel is left as it is.
 */
function multiKeyChanges(existing: ChannelEntity, input: ChannelInput): Partial<ChannelEntity> {
  const info = parseChannelInfo(existing.channelInfo);
  if (!info.is_multi_key) return {};
  const sentKey = input.key?.trim() ? input.key : undefined;
  const next = sentKey ? updateMultiKeys(existing.key, info, sentKey, input.key_mode ?? 'replace') : { key: existing.key, info };
  if (!next.info.multi_key_size) throw new BusinessError(MESSAGES.nameAndKey);
  if (input.multi_key_mode) next.info = { ...next.info, multi_key_mode: input.multi_key_mode };
  return { key: next.key, channelInfo: JSON.stringify(next.info) };
}

const STATUS_ONLY_FIELDS = new Set(['id', 'status', 'priority', 'weight']);

function filterOf(query: Query): ChannelFilter {
  const status = String(query.status ?? '');
  const type = typeof query.type === 'string' && /^\d{1,4}$/.test(query.type) ? Number(query.type) : undefined;
  return {
    status: status === 'enabled' || status === '1' ? 'enabled' : status === 'disabled' || status === '0' ? 'disabled' : undefined,
    type,
  };
}

const flag = (value: unknown) => value === 'true' || value === '1' || value === true;
const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** Channel CRUD, tags and the abilities index (spec 001 §2–§5, new-api /api/channel). */
@Injectable()
export class ChannelService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly router: ChannelRouter,
    private readonly options: OptionService,
  ) {}

  async list(query: Query) {
    const page = parsePage(query);
    const filter = filterOf(query);
    const idSort = flag(query.id_sort);
    let items: ChannelEntity[];
    let total: number;
    if (flag(query.tag_mode)) {
      const [tags, count] = await this.channels.listTags(filter, page.offset, page.pageSize);
      items = [];
      for (const tag of tags) items.push(...(await this.channels.findInTagBucket(tag, filter, idSort)));
      total = count;
    } else {
      [items, total] = await this.channels.list(filter, idSort, page.offset, page.pageSize);
    }
    return { ...toPage(items.map(toChannelView), total, page), type_counts: await this.channels.typeCounts(filter) };
  }

  async search(query: Query) {
    const page = parsePage(query);
    const filter: ChannelSearch = { ...filterOf(query), keyword: str(query.keyword), group: str(query.group), model: str(query.model) };
    const idSort = flag(query.id_sort);
    let rows = await this.channels.search(filter, idSort);
    if (flag(query.tag_mode)) {
      // new-api SearchTags: the tags of the matching channels, each with all of its channels.
      const tags = [...new Set(rows.map((row) => row.tag).filter((tag): tag is string => Boolean(tag)))].sort();
      rows = [];
      for (const tag of tags) rows.push(...(await this.channels.findInTagBucket(tag, filterOf(query), idSort)));
    }
    const items = rows.slice(page.offset, page.offset + page.pageSize).map(toChannelView);
    return { ...toPage(items, rows.length, page), type_counts: await this.channels.typeCounts(filterOf(query)) };
  }

  async get(id: number): Promise<ChannelView> {
    const row = await this.channels.findById(id);
    if (!row) throw new NotFoundError(MESSAGES.notFound);
    return toChannelView(row);
  }

  /** new-api's `POST /api/channel/:id/key` (root, after `/api/verify`): the full key, one line per key for a multi-key channel. */
  async revealKey(id: number): Promise<{ key: string }> {
    const row = await this.channels.findById(id);
    if (!row) throw new NotFoundError(MESSAGES.notFound);
    return { key: row.key };
  }

  async create(body: CreateChannelRequest, principal: Principal): Promise<{ ids: number[] }> {
    const input: ChannelInput = body.channel ?? body;
    const mode = body.mode ?? 'single';
    const name = (input.name ?? '').trim();
    const key = (input.key ?? '').trim();
    if (!name || !key) throw new BusinessError(MESSAGES.nameAndKey);
    const fields = await this.readFields(input, principal);
    if (!fields.models) throw new BusinessError(MESSAGES.models);
    if (fields.type === ChannelType.VertexAi) await this.checkTokenUris(key);
    // multi_to_single: one channel holding every key (one per line), new-api's multi-key mode.
    const multiKeys = mode === 'multi_to_single' ? keysFromInput(key) : undefined;
    if (multiKeys && !multiKeys.length) throw new BusinessError(MESSAGES.nameAndKey);
    const keys = multiKeys
      ? [multiKeys.join('\n')]
      : mode === 'batch'
        ? [
            ...new Set(
              key
                .split('\n')
                .map((k) => k.trim())
                .filter(Boolean),
            ),
          ]
        : [key];
    if (multiKeys)
      fields.channelInfo = JSON.stringify(newMultiKeyInfo(multiKeys.length, input.multi_key_mode ?? body.multi_key_mode ?? 'random'));
    if (keys.length > 1000) throw new BusinessError('at most 1000 keys at once');
    const prefixName = mode === 'batch' && body.batch_add_set_key_prefix_2_name === true && keys.length > 1;
    const now = nowSeconds();
    const ids = await this.channels.transaction(async (manager) => {
      const created: ChannelEntity[] = [];
      for (const k of keys) {
        const row: Partial<ChannelEntity> = {
          status: ChannelStatus.Enabled,
          autoBan: 1,
          group: 'default',
          priority: 0,
          weight: 0,
          // No base URL (the type's default): no admin-chosen host to hold public.
          baseUrlPublic: 0,
          ...fields,
          name: prefixName ? `${name}_${k.slice(0, 8)}` : name,
          key: k,
          createdTime: now,
        };
        if (fields.type === undefined) row.type = ChannelType.OpenAI;
        applyTypeDefaults(row);
        created.push(await this.channels.insert(row, manager));
      }
      await this.channels.syncAbilities(created, manager);
      return created.map((c) => c.id);
    });
    await this.router.changed();
    return { ids };
  }

  async update(input: ChannelInput, principal: Principal): Promise<ChannelView> {
    const id = parseInteger(input.id, MESSAGES.notFound, 1);
    if (!id) throw new NotFoundError(MESSAGES.notFound);
    const sent = Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name);
    const statusOnly = sent.every((name) => STATUS_ONLY_FIELDS.has(name));
    const changes: Partial<ChannelEntity> = statusOnly ? {} : await this.readFields(input, principal);
    if (statusOnly) {
      const priority = parsePriority(input.priority);
      const weight = parseWeight(input.weight);
      if (priority !== undefined) changes.priority = priority;
      if (weight !== undefined) changes.weight = weight;
    }
    if (input.status !== undefined && input.status !== null) {
      const status = parseInteger(input.status, 'invalid status', 1, 3);
      if (status !== undefined) changes.status = status;
    }
    if (!statusOnly) {
      if (input.name !== undefined) {
        if (!input.name.trim()) throw new BusinessError(MESSAGES.nameAndKey);
        changes.name = input.name.trim();
      }
      // An empty key keeps the stored one (the console never receives it).
      if (input.key?.trim()) changes.key = input.key.trim();
      if (input.models !== undefined && !changes.models) throw new BusinessError(MESSAGES.models);
      await this.checkEditedTokenUris(id, input.key?.trim() || undefined, changes.type);
    }
    const row = await this.channels.transaction(async (manager) => {
      const existing = await this.channels.findById(id, manager);
      if (!existing) throw new NotFoundError(MESSAGES.notFound);
      const next = { ...existing, ...changes, ...multiKeyChanges(existing, input) };
      applyTypeDefaults(next);
      const { id: _id, ...columns } = next;
      await this.channels.update(id, columns, manager);
      const saved = (await this.channels.findById(id, manager))!;
      await this.channels.syncAbilities([saved], manager);
      return saved;
    });
    await this.router.changed();
    return toChannelView(row);
  }

  async remove(id: number): Promise<void> {
    const deleted = await this.channels.transaction((manager) => this.channels.deleteIds([id], manager));
    if (!deleted) throw new NotFoundError(MESSAGES.notFound);
    await this.router.changed();
  }

  async removeDisabled(): Promise<number> {
    const deleted = await this.channels.transaction(async (manager) => {
      const ids = await this.channels.idsWithStatus([ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled], manager);
      return this.channels.deleteIds(ids, manager);
    });
    await this.router.changed();
    return deleted;
  }

  async removeMany(rawIds: (number | string)[]): Promise<number> {
    const ids = toIds(rawIds);
    const deleted = await this.channels.transaction((manager) => this.channels.deleteIds(ids, manager));
    await this.router.changed();
    return deleted;
  }

  async setTagForIds(rawIds: (number | string)[], tag: string | null | undefined): Promise<number> {
    const ids = toIds(rawIds);
    const value = (tag ?? '').trim();
    if (!value) throw new BusinessError(MESSAGES.tagRequired);
    const count = await this.channels.transaction(async (manager) => {
      const rows = await this.channels.findByIds(ids, manager);
      for (const row of rows) await this.channels.update(row.id, { tag: value }, manager);
      await this.channels.syncAbilities(
        rows.map((row) => ({ ...row, tag: value })),
        manager,
      );
      return rows.length;
    });
    await this.router.changed();
    return count;
  }

  async editTag(body: EditTagRequest): Promise<number> {
    const tag = body.tag.trim();
    if (!tag) throw new BusinessError(MESSAGES.tagRequired);
    const changes: Partial<ChannelEntity> = {};
    if (body.new_tag !== undefined && body.new_tag !== null && body.new_tag.trim() !== tag) changes.tag = body.new_tag.trim() || null;
    const priority = parsePriority(body.priority);
    const weight = parseWeight(body.weight);
    if (priority !== undefined) changes.priority = priority;
    if (weight !== undefined) changes.weight = weight;
    if (body.model_mapping !== undefined && body.model_mapping !== null)
      changes.modelMapping = parseJsonField(body.model_mapping, MESSAGES.modelMapping);
    const models = body.models === null ? undefined : parseModelList(body.models);
    if (models !== undefined) {
      if (!models.length) throw new BusinessError(MESSAGES.models);
      changes.models = models.join(',');
    }
    const groups = body.groups === null || body.groups === undefined ? undefined : parseGroups({ group: body.groups });
    if (groups?.length) changes.group = groups.join(',');
    if (Object.keys(changes).length === 0) throw new BusinessError(MESSAGES.noChanges);
    return this.updateTag(tag, changes);
  }

  async setTagStatus(tag: string, status: number): Promise<number> {
    return this.updateTag(tag.trim(), { status });
  }

  private async updateTag(tag: string, changes: Partial<ChannelEntity>): Promise<number> {
    const count = await this.channels.transaction(async (manager) => {
      const rows = await this.channels.findByTag(tag, manager);
      if (!rows.length) throw new NotFoundError('no channel has this tag');
      for (const row of rows) await this.channels.update(row.id, changes, manager);
      await this.channels.syncAbilities(
        rows.map((row) => ({ ...row, ...changes })),
        manager,
      );
      return rows.length;
    });
    await this.router.changed();
    return count;
  }

  async fixAbilities(): Promise<{ success: number; fails: number }> {
    const result = await this.channels.transaction((manager: EntityManager) => this.channels.rebuildAllAbilities(manager));
    await this.router.changed();
    return { success: result.channels, fails: 0 };
  }

  enabledModels(): string[] {
    return this.router.enabledModels();
  }

  /** Validates and maps the optional form fields (everything but name, key, status). */
  private async readFields(input: ChannelInput, principal: Principal): Promise<Partial<ChannelEntity>> {
    const out: Partial<ChannelEntity> = {};
    if (input.type !== undefined && input.type !== null) {
      const type = parseInteger(input.type, 'unknown channel type', 0, 1000);
      if (type === undefined || !channelTypeInfo(type)) throw new BusinessError('unknown channel type');
      out.type = type;
    }
    const models = parseModelList(input.models);
    if (models !== undefined) {
      if (!models.length) throw new BusinessError(MESSAGES.models);
      out.models = models.join(',');
    }
    const groups = parseGroups(input);
    if (groups !== undefined) out.group = groups.length ? groups.join(',') : 'default';
    const modelMapping = parseJsonField(input.model_mapping, MESSAGES.modelMapping);
    if (modelMapping !== undefined) out.modelMapping = modelMapping;
    const statusCodeMapping = parseJsonField(input.status_code_mapping, 'status code mapping must be valid JSON');
    if (statusCodeMapping !== undefined) {
      if (statusCodeMapping.length > 1024) throw new BusinessError('status code mapping is too long');
      out.statusCodeMapping = statusCodeMapping;
    }
    const paramOverride = parseParamOverride(input.param_override);
    if (paramOverride !== undefined) out.paramOverride = paramOverride;
    const headerOverride = parseJsonField(input.header_override, 'header override must be valid JSON');
    if (headerOverride !== undefined) out.headerOverride = headerOverride;
    const setting = parseJsonField(input.setting, 'setting must be valid JSON');
    if (setting !== undefined) out.setting = setting;
    const priority = parsePriority(input.priority);
    if (priority !== undefined) out.priority = priority;
    const weight = parseWeight(input.weight);
    if (weight !== undefined) out.weight = weight;
    const baseUrl = parseBaseUrl(input.base_url);
    if (baseUrl !== undefined) {
      // Recorded with the URL, never read from the request: the relay holds the URL to it when it connects.
      out.baseUrlPublic = baseUrl && (await this.checkBaseUrl(baseUrl, principal)) ? 1 : 0;
      out.baseUrl = baseUrl;
    }
    if (input.other !== undefined) out.other = (input.other ?? '').trim();
    if (input.openai_organization !== undefined) out.openaiOrganization = input.openai_organization?.trim() || null;
    if (input.test_model !== undefined) out.testModel = input.test_model?.trim() || null;
    if (input.tag !== undefined) out.tag = input.tag?.trim() || null;
    if (input.remark !== undefined) out.remark = input.remark;
    if (input.auto_ban !== undefined && input.auto_ban !== null)
      out.autoBan = parseInteger(input.auto_ban, 'auto_ban must be 0 or 1', 0, 1) ?? 1;
    const settings = parseJsonField(input.settings, 'settings must be valid JSON');
    if (settings !== undefined) out.otherSettings = settings;
    if (input.max_input_tokens !== undefined && input.max_input_tokens !== null) {
      out.maxInputTokens = parseInteger(input.max_input_tokens, 'max_input_tokens must be a non-negative integer') ?? 0;
    }
    return out;
  }

  /**
   * Threats S5: a base URL on a private or loopback address can send the provider key into the
   * intranet. Root may set one (self-hosted providers like Ollama); an admin only when the operator
   * turned AllowPrivateOutboundUrls on. Returns whether the URL must stay public when the relay connects
   * (DNS rebinding: the name is resolved again then): true when every address found now is public, and
   * for a name an admin saved that does not resolve yet (an admin could not have saved a private one);
   * false when a private address was let through, or root saved a name that does not resolve yet (a
   * Docker service started later).
   */
  private async checkBaseUrl(baseUrl: string, principal: Principal): Promise<boolean> {
    const reach = await reachOf(baseUrl.replaceAll('{model}', 'model'));
    if (reach === 'public') return true;
    const privileged = principal.role >= Role.Root || this.options.get('AllowPrivateOutboundUrls');
    if (reach === 'unresolved') return !privileged;
    if (!privileged) throw new BusinessError('this base url points to a private address; only root can set it');
    return false;
  }

  /**
   * Threats S5: a Vertex AI key file's token_uri is where the gateway posts a signed assertion for a token
   * (on every channel test too), so one on a private address is a request into the intranet. The address
   * rules are the base URL's, without root's exemption: the relay refuses such a token_uri when it fetches
   * a token unless AllowPrivateOutboundUrls is on (it cannot tell who saved a key), so a key that root saved
   * would only make a channel that always fails.
   */
  private async checkTokenUris(key: string): Promise<void> {
    for (const uri of tokenUrisOf(key)) {
      try {
        parseOutboundUrl(uri, { allowPrivate: true });
      } catch {
        throw new BusinessError('the service account token_uri must be an http(s) URL');
      }
      if (!this.options.get('AllowPrivateOutboundUrls') && (await reachesInside(uri))) {
        throw new BusinessError('the service account token_uri points to a private address; allowed only with AllowPrivateOutboundUrls on');
      }
    }
  }

  /** checkTokenUris for an edit that sends a key or makes the channel a Vertex AI one (the stored type or key is read). */
  private async checkEditedTokenUris(id: number, sentKey: string | undefined, sentType: number | undefined): Promise<void> {
    if (sentKey === undefined && sentType !== ChannelType.VertexAi) return;
    const stored = sentKey === undefined || sentType === undefined ? await this.channels.findById(id) : undefined;
    if ((sentType ?? stored?.type) !== ChannelType.VertexAi) return;
    await this.checkTokenUris(sentKey ?? stored?.key ?? '');
  }
}

/**
 * Where a URL reaches: `private` when malformed, a local name, or a name or literal with any private or
 * reserved address; `unresolved` for a name that does not resolve now (offline install, DNS later);
 * `public` when every address is public.
 */
async function reachOf(raw: string): Promise<'public' | 'private' | 'unresolved'> {
  let url: URL;
  try {
    url = parseOutboundUrl(raw);
  } catch {
    return 'private';
  }
  if (/(^|\.)(localhost|internal|local)\.?$/i.test(url.hostname)) return 'private';
  try {
    await resolveOutbound(url);
  } catch (error) {
    return error instanceof OutboundUrlError && /cannot be resolved/.test(error.message) ? 'unresolved' : 'private';
  }
  return 'public';
}

/** A URL that may reach the intranet (reachOf); a name that does not resolve now reaches nothing. */
async function reachesInside(raw: string): Promise<boolean> {
  return (await reachOf(raw)) === 'private';
}

function toIds(raw: (number | string)[]): number[] {
  const ids = raw.map((v) => Number(v)).filter((v) => Number.isInteger(v) && v > 0);
  if (!ids.length) throw new BusinessError(MESSAGES.selectChannels);
  return [...new Set(ids)];
}

/** Type 18 defaults `other` to v2.1; type 41 to the region us-central1 (spec 001 §5, §9). */
function applyTypeDefaults(row: Partial<ChannelEntity>): void {
  const info = row.type !== undefined ? channelTypeInfo(row.type) : undefined;
  if (info?.otherDefault && !(row.other ?? '').trim()) row.other = info.otherDefault;
}
