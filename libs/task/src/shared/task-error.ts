/**
 * A refusal on a task route; each family renders it in its own wire shape (Midjourney, Suno, OpenAI video).
 * `appendRequestId` marks the token and routing refusals, which new-api answers from its middleware with the
 * request id at the end of the message; the families' own errors carry none.
 */
export class TaskRelayError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly code: string,
    readonly appendRequestId = false,
  ) {
    super(message);
  }
}
