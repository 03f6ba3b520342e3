import { Injectable } from '@nestjs/common';
import { toPage, type PageRequest } from '@gw/core';
import { TaskRepository, type TaskListFilter } from './task.repository.js';
import { toTaskDto } from './task-view.js';

/** Pages of the task log; the channel is shown to administrators only (new-api omits it for users). */
@Injectable()
export class TaskLogService {
  constructor(private readonly rows: TaskRepository) {}

  async list(filter: TaskListFilter, page: PageRequest, admin: boolean) {
    const [rows, total] = await this.rows.list(filter, page.offset, page.pageSize);
    return toPage(
      rows.map((row) => toTaskDto(row, { withChannel: admin })),
      total,
      page,
    );
  }
}
