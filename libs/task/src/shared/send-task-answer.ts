import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { Logger } from '@nestjs/common';
import { carriesRequestId, openAiError, requestIdHeaderOf, serverFaultOf, withRequestId } from '@gw/core';
import { TaskRelayError } from './task-error.js';

const logger = new Logger('TaskRelay');

/** A JSON answer, or bytes streamed from the provider (a finished video). */
export type TaskRouteAnswer = { status: number; body: unknown } | { status: number; stream: Readable; contentType: string };

/**
 * Runs a task route and writes its answer: the family's own body on success, an OpenAI error body for
 * authentication, quota and routing refusals (as new-api's middleware answers them; its token and routing
 * refusals end with the request id), a logged 500 otherwise.
 */
export async function sendTaskAnswer(req: Request, res: Response, work: () => Promise<TaskRouteAnswer>): Promise<void> {
  try {
    const answer = await work();
    if ('stream' in answer) {
      res.status(answer.status).setHeader('Content-Type', answer.contentType);
      answer.stream.on('error', () => res.destroy()).pipe(res);
      return;
    }
    res.status(answer.status).json(answer.body);
  } catch (error) {
    if (error instanceof TaskRelayError) {
      const message = carriesRequestId(error) ? withRequestId(error.message, requestIdHeaderOf(res)) : error.message;
      res
        .status(error.httpStatus)
        .json(openAiError(message, error.httpStatus >= 500 ? 'new_api_error' : 'invalid_request_error', error.code));
      return;
    }
    const fault = serverFaultOf(error);
    if (fault.status === 503) logger.warn(`${req.method} ${req.path}: database unavailable (${(error as Error).message})`);
    else logger.error(`${req.method} ${req.path}: ${(error as Error)?.stack ?? String(error)}`);
    if (!res.headersSent) res.status(fault.status).json(openAiError(fault.message, 'new_api_error', fault.code));
    else res.end();
  }
}

export function callOf(req: Request) {
  return { headers: req.headers, ip: req.ip ?? req.socket.remoteAddress ?? '', body: req.body as unknown, path: req.path };
}
