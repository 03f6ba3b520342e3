/** A refusal on a task route; each family renders it in its own wire shape (Midjourney, Suno, OpenAI video). */
export class TaskRelayError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly code: string,
  ) {
    super(message);
  }
}
