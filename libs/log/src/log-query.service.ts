import { Injectable } from '@nestjs/common';
import { BusinessError, toPage, type Page, type PageRequest, type Principal } from '@gw/core';
import type { LogQuery } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { ChannelRouter } from '@gw/channel';
import type { LogFilter } from './log-filter.js';
import { type LogList, type LogStat, LogStore } from './store/log-store.js';
import { toAdminView, toSelfView, type LogView } from './log.view.js';

const RECENT_ITEMS = 1000;

/**
 * The read side of the logs: admin views over everyone, self views over the caller's own rows. Channel names
 * come from the main database's channels (in memory), never from a join, so the logs may live elsewhere.
 */
@Injectable()
export class LogQueryService {
  constructor(
    private readonly logs: LogStore,
    private readonly channels: ChannelRouter,
  ) {}

  async listAll(query: LogQuery, page: PageRequest): Promise<LogPage> {
    const list = await this.logs.list(adminFilter(query), page.offset, page.pageSize);
    const name = (id: number) => this.channels.get(id)?.name ?? '';
    return toLogPage(
      list,
      list.rows.map((row) => toAdminView(row, name)),
      page,
    );
  }

  async listOwn(principal: Principal, query: LogQuery, page: PageRequest): Promise<LogPage> {
    const list = await this.logs.list(selfFilter(principal, query), page.offset, page.pageSize);
    return toLogPage(
      list,
      list.rows.map((row, i) => toSelfView(row, page.offset + i + 1)),
      page,
    );
  }

  /** `GET /api/log/token`: the key's latest rows (new-api MaxRecentItems), as the owner sees them. */
  async listForToken(tokenId: number, userId: number): Promise<LogView[]> {
    const { rows } = await this.logs.list({ tokenId, userId }, 0, RECENT_ITEMS, false);
    return rows.map((row, i) => toSelfView(row, i + 1));
  }

  statAll(query: LogQuery): Promise<LogStat> {
    return this.logs.stat(adminFilter(query), nowSeconds());
  }

  statOwn(principal: Principal, query: LogQuery): Promise<LogStat> {
    return this.logs.stat(selfFilter(principal, query), nowSeconds());
  }

  /** DELETE /api/log/: rows created before the timestamp; returns the count. */
  deleteBefore(targetTimestamp: number): Promise<number> {
    return this.logs.purgeBefore(targetTimestamp);
  }
}

/**
 * new-api's page `{items, total, page, page_size}`, plus `total_capped` when the total only says "at least"
 * and `next_cursor` for keyset paging to the following page.
 */
export interface LogPage extends Page<LogView> {
  total_capped?: true;
  next_cursor?: string;
}

function toLogPage(list: LogList, items: LogView[], page: PageRequest): LogPage {
  const result: LogPage = toPage(items, list.total, page);
  if (list.capped) result.total_capped = true;
  const last = list.rows.at(-1);
  if (last && list.rows.length === page.pageSize) result.next_cursor = `${last.createdAt}_${last.id}`;
  return result;
}

function adminFilter(query: LogQuery): LogFilter {
  return { ...commonFilter(query), username: query.username || undefined, channelId: query.channel || undefined };
}

/** Own rows only; the admin-only filters (username, channel) are ignored. */
function selfFilter(principal: Principal, query: LogQuery): LogFilter {
  return { ...commonFilter(query), userId: principal.id };
}

function commonFilter(query: LogQuery): LogFilter {
  if (query.start_timestamp && query.end_timestamp && query.start_timestamp > query.end_timestamp) {
    throw new BusinessError('start_timestamp must not be after end_timestamp', 'invalid_input');
  }
  return {
    type: query.type || undefined,
    tokenName: query.token_name || undefined,
    modelName: query.model_name || undefined,
    start: query.start_timestamp || undefined,
    end: query.end_timestamp || undefined,
    group: query.group || undefined,
    requestId: query.request_id || undefined,
    after: query.cursor,
  };
}
