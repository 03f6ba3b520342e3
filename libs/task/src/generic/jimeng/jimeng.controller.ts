import type { Request, Response } from 'express';
import { Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { callOf, sendTaskAnswer } from '../../shared/send-task-answer.js';
import { taskError, TaskRelayService } from '../task-relay.service.js';
import { TaskStatus } from '../task.entity.js';

const SUBMIT = 'CVSync2AsyncSubmitTask';
const RESULT = 'CVSync2AsyncGetResult';

/** Our task status in Jimeng's words. */
const STATUS_WORD: Record<string, string> = {
  [TaskStatus.Success]: 'done',
  [TaskStatus.Failure]: 'not_found',
  [TaskStatus.InProgress]: 'generating',
};

/**
 * Jimeng's own OpenAPI shape at `/jimeng/?Action=…&Version=2022-08-31` (new-api's route): a submit becomes
 * the unified video submit (`req_key` is the model, the whole body its metadata); a result query reads the
 * caller's task and answers in Jimeng's shape.
 */
@Controller('jimeng')
@NoEnvelope()
export class JimengController {
  constructor(private readonly tasks: TaskRelayService) {}

  @Post()
  @HttpCode(200)
  handle(@Query('Action') action: string | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      const call = callOf(req);
      // The key first, as every relay route: a stranger learns nothing of the route's rules.
      await this.tasks.authenticate(call);
      const body = (call.body && typeof call.body === 'object' && !Array.isArray(call.body) ? call.body : {}) as Record<string, unknown>;
      if (!action) return taskError('Action query parameter is required', 'invalid_request');
      if (action === SUBMIT) {
        const images = [body.image_urls, body.binary_data_base64].find(Array.isArray) ?? [];
        const unified = { model: body.req_key, prompt: body.prompt, images, duration: body.frames === 241 ? 10 : 5, metadata: body };
        return this.tasks.submitByModel('generate', { ...call, body: unified });
      }
      if (action === RESULT) {
        if (typeof body.task_id !== 'string' || !body.task_id.trim()) return taskError('task_id is required', 'invalid_request');
        const own = await this.tasks.ownTask(body.task_id.trim(), call);
        if (!own) return taskError('task_not_exist', 'task_not_exist', 404);
        const failed = own.row.status === TaskStatus.Failure;
        return {
          status: 200,
          body: {
            code: failed ? 50500 : 10000,
            message: failed ? own.row.failReason || 'task failed' : 'Success',
            data: { status: STATUS_WORD[own.row.status ?? ''] ?? 'in_queue', video_url: own.row.privateData?.result_url ?? '' },
          },
        };
      }
      return taskError(`unsupported Action ${action}`, 'invalid_request');
    });
  }
}
