import { Injectable } from '@nestjs/common';
import type { PageRequest } from '@gw/core';
import { TaskRepository, type TaskListFilter } from './task.repository.js';
import { toTaskDto } from './task-view.js';

/**
 * One 0-based page of the task log, newest first, as a plain list (new-api's `/api/task/`: no total; the
 * console fetches the next page when the user reaches the last one loaded). The channel is shown to
 * administrators only (new-api omits it for users).
 */
@Injectable()
export class TaskLogService {
  constructor(private readonly rows: TaskRepository) {}

  async list(filter: TaskListFilter, page: PageRequest, admin: boolean): Promise<Record<string, unknown>[]> {
    const rows = await this.rows.list(filter, page.offset, page.pageSize);
    return rows.map((row) => toTaskDto(row, { withChannel: admin }));
  }
}
