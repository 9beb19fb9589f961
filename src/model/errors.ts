/**
 * Typed domain errors. Services and stores throw these; src/http/errors.ts is the one place that turns them
 * into an HTTP status and the JSON body {status, message, exceptionClass}.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Malformed JSON, bad URN, bad parameter or enum value. */
export class InvalidInputError extends DomainError {
  readonly status = 400;
}

/** Missing or invalid token. */
export class UnauthorizedError extends DomainError {
  readonly status = 401;
}

/** Valid token without the scope the call needs. */
export class ForbiddenError extends DomainError {
  readonly status = 403;
}

/** Unknown path, missing entity, aspect or version. */
export class NotFoundError extends DomainError {
  readonly status = 404;
}

export class MethodNotAllowedError extends DomainError {
  readonly status = 405;
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

/** Schema validation failure, unknown aspect for the entity type, URN/type mismatch. */
export class ValidationError extends DomainError {
  readonly status = 422;
  constructor(
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** A conditional write's precondition (If-Version-Match) does not hold: nothing of the request is written. */
export class PreconditionFailedError extends DomainError {
  readonly status = 412;
}

/** The configured engine lacks a capability (e.g. delete-by-query). */
export class NotSupportedError extends DomainError {
  readonly status = 501;
}

/** A backend is unreachable or timed out. */
export class UnavailableError extends DomainError {
  readonly status = 503;
  constructor(
    message: string,
    readonly backend: 'neo4j' | 'search',
    /** The backend answered, but not within the time limit. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** The service has more work queued than it can finish in time: the client should retry after `retryAfterSeconds`. */
export class OverloadedError extends DomainError {
  constructor(
    message: string,
    readonly status: 429 | 503,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A read as of a moment before the history retention kept (the answer could be wrong, so there is none). */
export class HistoryTrimmedError extends DomainError {
  readonly status = 410;
}

/** A bounded query (lineage) did not finish within its deadline; never answered as a silent partial result. */
export class DeadlineExceededError extends DomainError {
  readonly status = 504;
}
