/**
 * Domain errors carry what the caller should read. The console edge turns them into the envelope
 * `{success:false, message}` with `status` (200 for business errors, as new-api's console expects);
 * the relay edge turns them into OpenAI/Anthropic error bodies with `relayStatus`.
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly status = 200,
    readonly code = 'error',
    readonly relayStatus = status === 200 ? 400 : status,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A sensitive route without a recent `POST /api/verify` on this session: new-api's 403
 * `{success:false, message, code:"VERIFICATION_REQUIRED"}`, whose code the console reads to ask for it.
 */
export class VerificationRequiredError extends AppError {
  readonly exposeCode = true;
  constructor(message = 'this action needs a recent security verification (POST /api/verify)') {
    super(message, 403, 'VERIFICATION_REQUIRED', 403);
  }
}

/** A rule said no: HTTP 200 with success:false on the console. */
export class BusinessError extends AppError {
  constructor(message: string, code = 'business_error') {
    super(message, 200, code, 400);
  }
}

/** Missing or expired login, or a New-Api-User header that does not match: 401. */
export class UnauthorizedError extends AppError {
  constructor(message = 'not logged in or login expired, please log in again') {
    super(message, 401, 'unauthorized', 401);
  }
}

/** Logged in, but the role or status does not allow it: success:false, like new-api. */
export class ForbiddenError extends AppError {
  constructor(message = 'permission denied: insufficient role') {
    super(message, 200, 'forbidden', 403);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'not found') {
    super(message, 200, 'not_found', 404);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message = 'too many requests, try later') {
    super(message, 429, 'rate_limited', 429);
  }
}

/** Input that cannot be read at all (malformed JSON, oversized body): a real 4xx. */
export class BadRequestError extends AppError {
  constructor(message: string, status = 400) {
    super(message, status, 'invalid_request', status);
  }
}
