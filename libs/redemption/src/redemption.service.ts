import { Injectable } from '@nestjs/common';
import { BusinessError, NotFoundError, parsePage, toPage, type Page, type Principal } from '@gw/core';
import {
  characterCount,
  REDEMPTION_NAME_MAX,
  REDEMPTION_NAME_RULE,
  type CreateRedemptionRequest,
  type RedemptionStatusRequest,
  type RedemptionView,
  type UpdateRedemptionRequest,
} from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { formatQuota, quotaDisplay } from './quota-format.js';
import { RedemptionStatus, type RedemptionEntity } from './redemption.entity.js';
import { RedemptionRepository } from './redemption.repository.js';
import { toRedemptionView } from './redemption.view.js';
import { randomAlphanumeric } from './support/random-key.js';

const KEY_LENGTH = 32;

/** Admin management of redemption codes (new-api's `/api/redemption`). */
@Injectable()
export class RedemptionService {
  constructor(
    private readonly codes: RedemptionRepository,
    private readonly options: OptionService,
  ) {}

  async list(query: Record<string, unknown>): Promise<Page<RedemptionView>> {
    const request = parsePage(query);
    const [rows, total] = await this.codes.page(request);
    return toPage(rows.map(toRedemptionView), total, request);
  }

  async search(query: Record<string, unknown>): Promise<Page<RedemptionView>> {
    const request = parsePage(query);
    const keyword = typeof query.keyword === 'string' ? query.keyword.trim().slice(0, 64) : '';
    const [rows, total] = await this.codes.search(keyword, request);
    return toPage(rows.map(toRedemptionView), total, request);
  }

  async get(id: number): Promise<RedemptionView> {
    return toRedemptionView(await this.found(id));
  }

  /** Creates `count` codes and answers their keys (the only time they are handed out in bulk). */
  async create(input: CreateRedemptionRequest, creator: Principal): Promise<string[]> {
    const name = input.name || this.defaultName(input.quota);
    if (characterCount(name) > REDEMPTION_NAME_MAX) throw new BusinessError(REDEMPTION_NAME_RULE);
    this.checkExpiry(input.expired_time);
    const now = nowSeconds();
    const rows: Partial<RedemptionEntity>[] = Array.from({ length: input.count }, () => ({
      userId: creator.id,
      key: randomAlphanumeric(KEY_LENGTH),
      status: RedemptionStatus.Unused,
      name,
      quota: input.quota,
      createdTime: now,
      expiredTime: input.expired_time,
    }));
    await this.codes.insertMany(rows);
    return rows.map((row) => row.key!);
  }

  async update(input: UpdateRedemptionRequest): Promise<RedemptionView> {
    const row = await this.found(input.id);
    if (row.status !== RedemptionStatus.Unused) throw new BusinessError(this.notEditable(row.status));
    const expiredTime = input.expired_time ?? row.expiredTime;
    if (input.expired_time !== undefined) this.checkExpiry(expiredTime);
    const changed = await this.codes.updateUnused(row.id, { name: input.name, quota: input.quota, expiredTime });
    // Lost a race with a redemption or a disable between the read and the conditional update.
    if (!changed) throw new BusinessError(this.notEditable((await this.found(row.id)).status));
    return this.get(row.id);
  }

  async setStatus(input: RedemptionStatusRequest): Promise<RedemptionView> {
    const row = await this.found(input.id);
    if (row.status === RedemptionStatus.Used)
      throw new BusinessError('this redemption code has already been used and cannot be enabled or disabled');
    if (!(await this.codes.setStatusUnlessUsed(row.id, input.status))) {
      throw new BusinessError('this redemption code has already been used and cannot be enabled or disabled');
    }
    return this.get(row.id);
  }

  async remove(id: number): Promise<void> {
    if (!(await this.codes.softDelete(id))) throw new NotFoundError('redemption code not found');
  }

  /** Answers how many codes were removed. */
  removeInvalid(): Promise<number> {
    return this.codes.softDeleteInvalid(nowSeconds());
  }

  private async found(id: number): Promise<RedemptionEntity> {
    const row = await this.codes.findById(id);
    if (!row) throw new NotFoundError('redemption code not found');
    return row;
  }

  private notEditable(status: number): string {
    return status === RedemptionStatus.Used
      ? 'this redemption code has already been used and can no longer be edited'
      : 'only unused redemption codes can be edited; enable it first';
  }

  private checkExpiry(expiredTime: number): void {
    if (expiredTime !== 0 && expiredTime < nowSeconds()) throw new BusinessError('expiry time cannot be earlier than now');
  }

  private defaultName(quota: number): string {
    return formatQuota(quota, quotaDisplay(this.options));
  }
}
