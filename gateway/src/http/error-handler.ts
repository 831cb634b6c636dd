/**
 * The last middleware: every error a route or middleware raises leaves here as the spec's envelope.
 * AppErrors keep their kind and message; body-parser failures get their own clear messages;
 * anything else is logged with the correlation id and answered 500 without internals.
 */
import type { ErrorRequestHandler } from 'express';
import { AppError, ERROR_KINDS, type ErrorKind } from '@tix/kit';
import { sendError } from './envelope.js';

/** Messages for the body-parser / raw-body failure types the gateway can meet. */
const BODY_ERRORS: Record<string, (error: HttpishError) => AppError> = {
  'entity.parse.failed': () => AppError.badRequest('Malformed JSON body'),
  'entity.too.large': (error) =>
    new AppError(
      'payload_too_large',
      typeof error.limit === 'number'
        ? `Request body too large (limit ${error.limit} bytes)`
        : 'Request body too large',
    ),
  'encoding.unsupported': () => new AppError('unsupported_media_type', 'Unsupported content encoding'),
  'charset.unsupported': () => new AppError('unsupported_media_type', 'Unsupported charset'),
  'request.aborted': () => AppError.badRequest('Request aborted'),
  'request.size.invalid': () => AppError.badRequest('Request body size does not match Content-Length'),
};

interface HttpishError {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
  limit?: unknown;
}

const KIND_BY_STATUS = new Map<number, ErrorKind>(
  (Object.entries(ERROR_KINDS) as [ErrorKind, { http: number }][]).map(([kind, { http }]) => [http, kind]),
);

/**
 * The AppError a thrown value is answered with. Client errors raised by express's own machinery
 * (http-errors with `expose`) keep their status with a generic message; everything unknown is
 * internal.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  // The router decodes path parameters; a broken percent-escape (`/tickets/%E0%A4%A`) is the client's.
  if (error instanceof URIError) return AppError.badRequest('Malformed percent-encoding in the URL path');
  if (typeof error === 'object' && error !== null) {
    const candidate = error as HttpishError;
    if (typeof candidate.type === 'string' && Object.hasOwn(BODY_ERRORS, candidate.type)) {
      return BODY_ERRORS[candidate.type]!(candidate);
    }
    if (
      candidate.expose === true &&
      typeof candidate.status === 'number' &&
      candidate.status >= 400 &&
      candidate.status < 500
    ) {
      return new AppError(KIND_BY_STATUS.get(candidate.status) ?? 'bad_request', 'Invalid request');
    }
  }
  return AppError.internal('unexpected error', error);
}

/** Express error middleware rendering every error as the envelope (see toAppError). */
export function errorHandler(): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    if (response.headersSent) {
      // Too late for an envelope: let express close the connection.
      next(error);
      return;
    }
    const appError = toAppError(error);
    if (appError.kind === 'internal') {
      request.log.error({ err: appError.cause ?? appError }, 'request failed');
    } else if (appError.kind === 'unavailable' || appError.kind === 'timeout') {
      request.log.warn({ err: appError.cause ?? appError, message: appError.message }, 'dependency failed');
    }
    sendError(response, appError);
  };
}
