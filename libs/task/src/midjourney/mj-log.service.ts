import { Injectable } from '@nestjs/common';
import { toPage, type PageRequest } from '@gw/core';
import { OptionService } from '@gw/option';
import { MjRepository, type MjListFilter } from './mj.repository.js';
import { toMjListItem } from './mj-view.js';

/** Pages of the drawing log; image addresses go through our server when MjForwardUrlEnabled. */
@Injectable()
export class MjLogService {
  constructor(
    private readonly rows: MjRepository,
    private readonly options: OptionService,
  ) {}

  async list(filter: MjListFilter, page: PageRequest) {
    const [rows, total] = await this.rows.list(filter, page.offset, page.pageSize);
    const forward = { enabled: this.options.get('MjForwardUrlEnabled'), serverAddress: this.options.get('ServerAddress') };
    return toPage(
      rows.map((row) => toMjListItem(row, forward)),
      total,
      page,
    );
  }
}
