import { Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { BusinessError } from '../errors/app-error.js';

/**
 * Validates a request body or query against a contract schema. Unknown fields are dropped (zod
 * objects strip them), so fields a caller may not set never reach a service.
 */
@Injectable()
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const result = this.schema.safeParse(value ?? {});
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    if (issue?.message && !issue.message.startsWith('Invalid input')) throw new BusinessError(issue.message, 'invalid_input');
    const path = issue?.path.join('.') || 'body';
    throw new BusinessError(`invalid value for ${path}`, 'invalid_input');
  }
}

/** Shorthand: `@Body(body(CreateUserSchema))`. */
export const body = <S extends z.ZodType>(schema: S) => new ZodPipe(schema);
