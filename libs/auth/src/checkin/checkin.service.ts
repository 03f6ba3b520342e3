import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { BusinessError } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { UserBalance, UserHooks } from '@gw/user';
import { isUniqueViolation } from '../support/db-errors.js';
import { CheckinEntity } from './checkin.entity.js';

export const ALREADY_CHECKED_IN = 'you have already checked in today';

/** `YYYY-MM-DD` / `YYYY-MM` in the server's local time, as new-api's `time.Now().Format`. */
export function localDate(at = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

export interface CheckinStatus {
  enabled: boolean;
  min_quota: number;
  max_quota: number;
  stats: {
    total_quota: number;
    total_checkins: number;
    checkin_count: number;
    checked_in_today: boolean;
    records: { checkin_date: string; quota_awarded: number }[];
  };
}

/** The daily check-in reward (new-api's `checkin_setting`). */
@Injectable()
export class CheckinService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly options: OptionService,
    private readonly hooks: UserHooks,
    private readonly balances: UserBalance,
  ) {}

  private assertEnabled(): void {
    if (!this.options.get('checkin_setting.enabled')) throw new BusinessError('check-in is not enabled');
  }

  /** The month's check-ins (`month` = `YYYY-MM`, default this month) and the all-time totals. */
  async status(userId: number, month: string | undefined): Promise<CheckinStatus> {
    this.assertEnabled();
    const today = localDate();
    const wanted = month && /^\d{4}-(0[1-9]|1[0-2])$/.test(month) ? month : today.slice(0, 7);
    if (month && wanted !== month) throw new BusinessError('month must look like 2025-01');
    const rows = this.db.getRepository(CheckinEntity);
    const records = await rows
      .createQueryBuilder('c')
      .where('c.user_id = :userId AND c.checkin_date >= :from AND c.checkin_date <= :to', {
        userId,
        from: `${wanted}-01`,
        to: `${wanted}-31`,
      })
      .orderBy('c.checkin_date', 'DESC')
      .getMany();
    const totals = await rows
      .createQueryBuilder('c')
      .select('COUNT(*)', 'count')
      .addSelect('COALESCE(SUM(c.quota_awarded), 0)', 'sum')
      .where('c.user_id = :userId', { userId })
      .getRawOne<{ count: string | number; sum: string | number }>();
    const checkedToday = await rows.exists({ where: { userId, checkinDate: today } });
    return {
      enabled: true,
      min_quota: this.options.get('checkin_setting.min_quota'),
      max_quota: this.options.get('checkin_setting.max_quota'),
      stats: {
        total_quota: Number(totals?.sum ?? 0),
        total_checkins: Number(totals?.count ?? 0),
        checkin_count: records.length,
        checked_in_today: checkedToday,
        records: records.map((r) => ({ checkin_date: r.checkinDate, quota_awarded: r.quotaAwarded })),
      },
    };
  }

  /**
   * Checks in for today: the row and the reward go in one transaction, and the unique
   * (user_id, checkin_date) index refuses a second row, so parallel calls reward once.
   */
  async checkIn(userId: number): Promise<{ quota_awarded: number; checkin_date: string }> {
    this.assertEnabled();
    const min = this.options.get('checkin_setting.min_quota');
    const max = Math.max(min, this.options.get('checkin_setting.max_quota'));
    const award = min === max ? min : randomInt(min, max + 1);
    const today = localDate();
    if (await this.db.getRepository(CheckinEntity).exists({ where: { userId, checkinDate: today } })) {
      throw new BusinessError(ALREADY_CHECKED_IN);
    }
    try {
      await this.balances.transaction(async (wallet, m) => {
        await m.getRepository(CheckinEntity).insert({ userId, checkinDate: today, quotaAwarded: award, createdAt: nowSeconds() });
        // Refused only at the largest exact balance: the check-in row goes back with it.
        if (!(await wallet.credit(userId, award))) throw new BusinessError('the balance would exceed the maximum quota');
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new BusinessError(ALREADY_CHECKED_IN);
      throw error;
    }
    this.hooks.userChanged(userId);
    return { quota_awarded: award, checkin_date: today };
  }
}
