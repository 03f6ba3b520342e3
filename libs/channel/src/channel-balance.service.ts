import { Injectable } from '@nestjs/common';
import { BusinessError } from '@gw/core';
import { channelTypeInfo } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { ChannelStatus, type ChannelEntity } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelTestService } from './channel-test.service.js';
import { openAiUsageWindow, parseBalance, roundBalance } from './channel-balance.js';
import { toRelayChannel } from './relay-channel.js';

export const BALANCE_NOT_SUPPORTED = 'balance query is not supported for this channel type';

/** Provider balances (`/api/channel/update_balance`), for the types whose provider has a balance API. */
@Injectable()
export class ChannelBalanceService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly tests: ChannelTestService,
    private readonly options: OptionService,
  ) {}

  async updateBalance(row: ChannelEntity): Promise<number> {
    const kind = channelTypeInfo(row.type)?.balance;
    if (!kind) throw new BusinessError(BALANCE_NOT_SUPPORTED);
    const target = toRelayChannel(row).upstream;
    let balance: number;
    if (kind === 'openai') {
      // balance = hard_limit_usd − total_usage / 100 (total_usage is in cents).
      const subscription = await this.tests.getJson<{ hard_limit_usd?: unknown; has_payment_method?: unknown }>(
        target,
        'billing_subscription',
      );
      const hardLimit = Number(subscription.hard_limit_usd);
      if (!Number.isFinite(hardLimit)) throw new BusinessError('balance query failed: no hard_limit_usd in the answer');
      const usage = await this.tests.getJson<{ total_usage?: unknown }>(
        target,
        'billing_usage',
        openAiUsageWindow(subscription.has_payment_method === true),
      );
      const totalUsage = Number(usage.total_usage ?? 0);
      balance = hardLimit - (Number.isFinite(totalUsage) ? totalUsage : 0) / 100;
    } else {
      balance = parseBalance(kind, await this.tests.getJson<unknown>(target, 'balance'), this.options.get('Price'));
    }
    balance = roundBalance(balance);
    await this.channels.update(row.id, { balance, balanceUpdatedTime: nowSeconds() });
    return balance;
  }

  /** Balances of every enabled channel whose type has a balance API; returns how many were updated. */
  async updateAllBalances(): Promise<number> {
    let updated = 0;
    for (const row of await this.channels.findAllForRouting()) {
      if (row.status !== ChannelStatus.Enabled || !channelTypeInfo(row.type)?.balance) continue;
      try {
        await this.updateBalance(row);
        updated++;
      } catch {
        // A failing upstream is skipped; the others are still updated.
      }
    }
    return updated;
  }
}
