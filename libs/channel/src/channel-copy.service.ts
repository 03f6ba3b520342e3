import { Injectable } from '@nestjs/common';
import { BusinessError, NotFoundError } from '@gw/core';
import { nowSeconds } from '@gw/database';
import type { ChannelEntity } from './channel.entity.js';
import { MESSAGES } from './channel-input.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelRouter } from './channel-router.js';

export interface CopyOptions {
  suffix?: string;
  resetBalance?: boolean;
}

/** Copy "<name>_复制" unless the console asks for another suffix (new-api's default). */
const DEFAULT_SUFFIX = '_复制';

/**
 * new-api's POST /api/channel/copy/:id: a new channel with the same key and settings, its name suffixed;
 * test results are cleared and, unless told otherwise, the balance and used quota too. The key never
 * leaves the server, which is why the console cannot copy a channel on its own.
 */
@Injectable()
export class ChannelCopyService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly router: ChannelRouter,
  ) {}

  async copy(id: number, options: CopyOptions): Promise<{ id: number }> {
    const suffix = options.suffix ?? DEFAULT_SUFFIX;
    if (suffix.length > 64) throw new BusinessError('suffix is too long');
    const copy = await this.channels.transaction(async (manager) => {
      const source = await this.channels.findById(id, manager);
      if (!source) throw new NotFoundError(MESSAGES.notFound);
      const { id: _id, ...columns } = source;
      const clone: Partial<ChannelEntity> = {
        ...columns,
        name: `${source.name}${suffix}`.slice(0, 255),
        createdTime: nowSeconds(),
        testTime: 0,
        responseTime: 0,
      };
      if (options.resetBalance !== false) {
        clone.balance = 0;
        clone.usedQuota = 0;
        clone.balanceUpdatedTime = 0;
      }
      const inserted = await this.channels.insert(clone, manager);
      await this.channels.syncAbilities([inserted], manager);
      return inserted;
    });
    await this.router.changed();
    return { id: copy.id };
  }
}
