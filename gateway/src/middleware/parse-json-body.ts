/**
 * Request bodies are JSON. A JSON body (any JSON value, so that routes answer a non-object with 422)
 * is parsed up to BODY_LIMIT (malformed -> 400 `Malformed JSON body`, too large -> 413, see the error
 * handler); a POST/PUT/PATCH body of any other content type is refused with 415 unless the route is
 * exempt (multipart uploads).
 *
 * Before it is parsed, the body's shape is bounded here, once, so no later step meets what it cannot
 * handle (docs/decisions.md, "Hostile bodies"):
 * - JSON is UTF-8 (RFC 8259 section 8.1): another declared charset -> 415, bytes that are not UTF-8
 *   -> 400 (decoding them would silently turn them into U+FFFD);
 * - nesting deeper than MAX_JSON_DEPTH objects/arrays -> 400 naming the limit.
 * Duplicate keys are not refused: the last one wins, as in JSON.parse, and the gateway is the only
 * parser, so no two components can read the same body two ways.
 */
import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler } from 'express';
import { AppError, jsonNestingExceeds, jsonTooDeepMessage } from '@tix/kit';

export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Content-Type must be application/json';
export const UNSUPPORTED_CHARSET_MESSAGE = 'JSON must be sent as UTF-8';
export const INVALID_UTF8_MESSAGE = 'Request body is not valid UTF-8';

/** The charset parameter of a Content-Type, lower-cased, if any. */
function charsetOf(header: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header);
  return match?.[1]?.toLowerCase();
}

/** Runs on the raw bytes before JSON.parse (body-parser's `verify`); throws to refuse the body. */
function checkBodyShape(_request: unknown, _response: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw AppError.badRequest(INVALID_UTF8_MESSAGE);
  if (jsonNestingExceeds(body)) throw AppError.badRequest(jsonTooDeepMessage());
}

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
    verify: checkBodyShape,
  });
  return (request, response, next) => {
    if (!hasBody(request) || options.isExempt?.(request)) {
      next();
      return;
    }
    const contentType = request.headers['content-type'];
    if (isJsonContentType(contentType)) {
      const charset = charsetOf(contentType!);
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        throw new AppError('unsupported_media_type', UNSUPPORTED_CHARSET_MESSAGE);
      }
      parseJson(request, response, next);
      return;
    }
    if (BODY_METHODS.has(request.method)) {
      throw new AppError('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE_MESSAGE);
    }
    next();
  };
}
