import { Controller, Get, Query } from '@nestjs/common';
import { AdminRoute, CurrentUser, parseZeroBasedPage, UserRoute, body, type Principal } from '@gw/core';
import { TaskQuerySchema, type TaskQuery } from '@gw/contracts';
import { TaskLogService } from './task-log.service.js';

/**
 * The task log: `/api/task/` over every task (admin), `/api/task/self` over the caller's own. `p` is 0-based
 * and `data` is the list itself (spec 001), unlike the other console lists' 1-based Page objects.
 */
@Controller('api/task')
export class TaskLogController {
  constructor(private readonly tasks: TaskLogService) {}

  @Get()
  @AdminRoute()
  listAll(@Query(body(TaskQuerySchema)) query: TaskQuery, @Query() raw: Record<string, unknown>) {
    return this.tasks.list(
      {
        channelId: query.channel_id,
        taskId: query.task_id,
        platform: query.platform,
        start: query.start_timestamp,
        end: query.end_timestamp,
      },
      parseZeroBasedPage(raw),
      true,
    );
  }

  @Get('self')
  @UserRoute()
  listOwn(@CurrentUser() principal: Principal, @Query(body(TaskQuerySchema)) query: TaskQuery, @Query() raw: Record<string, unknown>) {
    return this.tasks.list(
      { userId: principal.id, taskId: query.task_id, platform: query.platform, start: query.start_timestamp, end: query.end_timestamp },
      parseZeroBasedPage(raw),
      false,
    );
  }
}
