/**
 * The one error model of the fleet. Domain code throws AppError with a kind; the kind decides the
 * gRPC status a service answers with and the HTTP status the gateway renders. Each direction is one
 * total table, so a new kind or code cannot fall through to a 500 unnoticed.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';

/** Field name -> messages (or scalars, for structured errors such as 402). */
export type ValidationErrors = Record<string, string[] | string | number | boolean | null>;

/** Every kind of failure a caller can be told about, with its HTTP status and its gRPC status. */
export const ERROR_KINDS = {
  bad_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  unauthenticated: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  payment_required: { http: 402, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  permission_denied: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  method_not_allowed: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  conflict: { http: 409, grpc: GrpcStatus.ABORTED },
  precondition_failed: { http: 412, grpc: GrpcStatus.FAILED_PRECONDITION },
  payload_too_large: { http: 413, grpc: GrpcStatus.OUT_OF_RANGE },
  unsupported_media_type: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  validation_failed: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  internal: { http: 500, grpc: GrpcStatus.INTERNAL },
  not_implemented: { http: 501, grpc: GrpcStatus.UNIMPLEMENTED },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  timeout: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
} as const satisfies Record<string, { http: number; grpc: GrpcStatus }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** What a caller is told when the failure is not theirs to know about. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** A failure the caller is meant to see: kind, message and optional per-field details. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly validationErrors?: ValidationErrors,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** HTTP status of this error. */
  get httpStatus(): number {
    return ERROR_KINDS[this.kind].http;
  }

  static badRequest(message: string, validationErrors?: ValidationErrors): AppError {
    return new AppError('bad_request', message, validationErrors);
  }

  static unauthenticated(message = 'Authentication required'): AppError {
    return new AppError('unauthenticated', message);
  }

  static permissionDenied(message: string): AppError {
    return new AppError('permission_denied', message);
  }

  static notFound(message: string): AppError {
    return new AppError('not_found', message);
  }

  static conflict(message: string): AppError {
    return new AppError('conflict', message);
  }

  /** 422 with per-field messages; `message` summarises them. */
  static validation(validationErrors: ValidationErrors, message = 'Validation failed'): AppError {
    return new AppError('validation_failed', message, validationErrors);
  }

  static unavailable(message: string, cause?: unknown): AppError {
    return new AppError('unavailable', message, undefined, { cause });
  }

  static internal(message: string, cause?: unknown): AppError {
    return new AppError('internal', message, undefined, { cause });
  }
}

/** The spec's error envelope. */
export interface ErrorEnvelope {
  ok: false;
  error: { code: number; message: string; validation_errors?: ValidationErrors };
}

/** Renders an AppError as the HTTP status and body the spec prescribes. */
export function toErrorEnvelope(error: AppError): { status: number; body: ErrorEnvelope } {
  const status = error.httpStatus;
  const message = error.kind === 'internal' ? INTERNAL_ERROR_MESSAGE : error.message;
  const body: ErrorEnvelope = { ok: false, error: { code: status, message } };
  if (error.validationErrors && Object.keys(error.validationErrors).length > 0) {
    body.error.validation_errors = error.validationErrors;
  }
  return { status, body };
}

/** True when `value` names an ErrorKind. */
export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && Object.hasOwn(ERROR_KINDS, value);
}
