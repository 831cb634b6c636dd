/**
 * Request bodies are JSON. A JSON body (any JSON value, so that routes answer a non-object with 422)
 * is parsed up to BODY_LIMIT (malformed -> 400 `Malformed JSON body`, too large -> 413, see the error
 * handler); a POST/PUT/PATCH body of any other content type is refused with 415 unless the route is
 * exempt (future multipart uploads).
 */
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@tix/kit';

export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Content-Type must be application/json';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** True for application/json and application/*+json (parameters such as charset allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** True when the request carries a body (chunked, or a non-zero Content-Length). */
export function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The body middleware described in the file header. */
export function parseJsonBody(options: {
  limitBytes: number;
  /** Routes that read their own body (multipart uploads). */
  isExempt?: (request: Request) => boolean;
}): RequestHandler {
  const parseJson = express.json({
    limit: options.limitBytes,
    // Any JSON value parses, so a body that is valid JSON but not an object reaches the route's
    // schema and is answered 422 on `body` (not 400 Malformed JSON body).
    strict: false,
    type: (request) => isJsonContentType((request as Request).headers['content-type']),
  });
  return (request, response, next) => {
    if (!hasBody(request) || options.isExempt?.(request)) {
      next();
      return;
    }
    if (isJsonContentType(request.headers['content-type'])) {
      parseJson(request, response, next);
      return;
    }
    if (BODY_METHODS.has(request.method)) {
      throw new AppError('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE_MESSAGE);
    }
    next();
  };
}
