import { badRequest } from './relay-error.js';

/** A client's model name: a non-blank string of at most 256 characters once trimmed (new-api's 400s otherwise). */
export function checkModel(model: unknown): string {
  const name = typeof model === 'string' ? model.trim() : '';
  if (!name) throw badRequest('model is required', 'model_required');
  if (name.length > 256) throw badRequest('model name is too long');
  return name;
}
