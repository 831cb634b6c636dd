/**
 * Crossing gRPC with the error model: an AppError leaves a service as its kind's gRPC status plus
 * metadata (kind and validation errors), and arrives at the caller as the same AppError. A gRPC error
 * without that metadata (transport failure, deadline, foreign server) is classified by its status
 * code alone, through GRPC_CODE_KIND, and gets a generic message so no internals leak.
 */
import { Metadata, status as GrpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import {
  AppError,
  ERROR_KINDS,
  INTERNAL_ERROR_MESSAGE,
  isErrorKind,
  type ErrorKind,
  type ValidationErrors,
} from '../errors.js';
import { isDatabaseUnavailable, isStatementTimeout } from '../db/pool.js';

const ERROR_KIND_KEY = 'tix-error-kind';
// -bin keys carry arbitrary bytes, so field names and messages may be any UTF-8.
const VALIDATION_ERRORS_KEY = 'tix-validation-errors-bin';

/** Kind of a gRPC error that carries no tix metadata, for every status code. */
export const GRPC_CODE_KIND: Record<GrpcStatus, ErrorKind> = {
  [GrpcStatus.OK]: 'internal', // an error claiming OK is a bug somewhere
  [GrpcStatus.CANCELLED]: 'unavailable',
  [GrpcStatus.UNKNOWN]: 'internal',
  [GrpcStatus.INVALID_ARGUMENT]: 'bad_request',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'timeout',
  [GrpcStatus.NOT_FOUND]: 'not_found',
  [GrpcStatus.ALREADY_EXISTS]: 'conflict',
  [GrpcStatus.PERMISSION_DENIED]: 'permission_denied',
  // Without our metadata this is grpc-js refusing an oversized message: our bug, not the caller's.
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'internal',
  [GrpcStatus.FAILED_PRECONDITION]: 'bad_request',
  [GrpcStatus.ABORTED]: 'conflict',
  [GrpcStatus.OUT_OF_RANGE]: 'bad_request',
  [GrpcStatus.UNIMPLEMENTED]: 'not_implemented',
  [GrpcStatus.INTERNAL]: 'internal',
  [GrpcStatus.UNAVAILABLE]: 'unavailable',
  [GrpcStatus.DATA_LOSS]: 'internal',
  [GrpcStatus.UNAUTHENTICATED]: 'unauthenticated',
};

/** Public message for a gRPC error without tix metadata, by kind. */
export const GENERIC_MESSAGES: Record<ErrorKind, string> = {
  bad_request: 'Invalid request',
  unauthenticated: 'Authentication required',
  payment_required: 'Payment required',
  permission_denied: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  validation_failed: 'Validation failed',
  rate_limited: 'Too many requests',
  internal: INTERNAL_ERROR_MESSAGE,
  not_implemented: 'Not implemented',
  unavailable: 'Service temporarily unavailable',
  timeout: 'Service did not answer in time',
};

/**
 * The kind a handler's failure answers with: an AppError's own; `unavailable` when the database
 * could not serve at all (the request may be retried: 503, never 500); `timeout` when it cancelled
 * a statement that ran past the statement timeout (504); otherwise `internal`.
 */
export function errorKindOf(error: unknown): ErrorKind {
  if (error instanceof AppError) return error.kind;
  if (isStatementTimeout(error)) return 'timeout';
  return isDatabaseUnavailable(error) ? 'unavailable' : 'internal';
}

/**
 * Converts anything thrown by a handler into the status a gRPC caller receives. AppErrors keep their
 * kind, message and validation errors; a database that cannot serve becomes UNAVAILABLE, a
 * statement cancelled by its timeout DEADLINE_EXCEEDED, anything else INTERNAL, each with a generic
 * message.
 */
export function toGrpcStatus(error: unknown): Partial<StatusObject> {
  const metadata = new Metadata();
  if (!(error instanceof AppError)) {
    const kind = errorKindOf(error);
    metadata.set(ERROR_KIND_KEY, kind);
    const details = kind === 'internal' ? INTERNAL_ERROR_MESSAGE : GENERIC_MESSAGES[kind];
    return { code: ERROR_KINDS[kind].grpc, details, metadata };
  }
  metadata.set(ERROR_KIND_KEY, error.kind);
  if (error.validationErrors) {
    metadata.set(VALIDATION_ERRORS_KEY, Buffer.from(JSON.stringify(error.validationErrors), 'utf8'));
  }
  return { code: ERROR_KINDS[error.kind].grpc, details: error.message, metadata };
}

/** Converts an error received from a gRPC call back into the AppError the service raised. */
export function fromGrpcError(error: ServiceError): AppError {
  const metadata = error.metadata instanceof Metadata ? error.metadata : new Metadata();
  const [kind] = metadata.get(ERROR_KIND_KEY);
  if (isErrorKind(kind)) {
    return new AppError(kind, error.details, readValidationErrors(metadata), { cause: error });
  }
  const fallback = GRPC_CODE_KIND[error.code] ?? 'internal';
  return new AppError(fallback, GENERIC_MESSAGES[fallback], undefined, { cause: error });
}

/**
 * True when `error` (from fromGrpcError) is an answer a service's handler gave on purpose (it carries
 * the error kind in metadata), false for transport failures, deadlines and foreign servers.
 */
export function answeredByService(error: AppError): boolean {
  const cause = error.cause as Partial<ServiceError> | undefined;
  return cause?.metadata instanceof Metadata && cause.metadata.get(ERROR_KIND_KEY).length > 0;
}

function readValidationErrors(metadata: Metadata): ValidationErrors | undefined {
  const [raw] = metadata.get(VALIDATION_ERRORS_KEY);
  if (!Buffer.isBuffer(raw)) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as ValidationErrors) : undefined;
  } catch {
    return undefined;
  }
}
