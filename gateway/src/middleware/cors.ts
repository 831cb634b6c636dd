/**
 * Cross-origin rules as the spec's Authentication 6 lists them, plus the polls' conditional
 * headers (If-None-Match in; ETag and X-Poll-Interval out). Two modes, set per deployment by
 * CORS_ORIGINS: wildcard (`*`, every origin, never credentials) or a list (only listed origins get
 * CORS headers, their origin echoed, credentials allowed, `Vary: Origin`). Preflights (OPTIONS with
 * Origin and Access-Control-Request-Method) end here with 204.
 */
import type { RequestHandler, Response } from 'express';

export type CorsPolicy = { mode: 'wildcard' } | { mode: 'list'; origins: readonly string[] };

export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'X-CSRF-Token',
  'X-API-Key',
  'Authorization',
  'Idempotency-Key',
  'If-None-Match',
] as const;
export const CORS_EXPOSED_HEADERS = [
  'X-Correlation-ID',
  'X-CSRF-Token',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Idempotency-Key',
  'X-Idempotency-Replay',
  'ETag',
  'X-Poll-Interval',
  'Retry-After',
  'Location',
  'Link',
] as const;
export const CORS_MAX_AGE_SECONDS = 86_400;

const ALLOW_METHODS = CORS_ALLOWED_METHODS.join(', ');
const ALLOW_HEADERS = CORS_ALLOWED_HEADERS.join(', ');
const EXPOSE_HEADERS = CORS_EXPOSED_HEADERS.join(', ');
const MAX_AGE = String(CORS_MAX_AGE_SECONDS);

function appendVaryOrigin(response: Response): void {
  const vary = response.getHeader('Vary');
  if (vary === undefined) response.setHeader('Vary', 'Origin');
  else if (!/(^|,)\s*origin\s*(,|$)/i.test(String(vary)))
    response.setHeader('Vary', `${String(vary)}, Origin`);
}

/** The CORS middleware for `policy` (header values are computed once, not per request). */
export function cors(policy: CorsPolicy): RequestHandler {
  const allowedOrigins = policy.mode === 'list' ? new Set(policy.origins) : undefined;
  return (request, response, next) => {
    const origin = request.headers.origin;
    let allowed: boolean;
    if (allowedOrigins === undefined) {
      allowed = true;
      response.setHeader('Access-Control-Allow-Origin', '*');
    } else {
      // The answer depends on Origin in list mode, so caches must key on it.
      appendVaryOrigin(response);
      allowed = origin !== undefined && allowedOrigins.has(origin);
      if (allowed) {
        response.setHeader('Access-Control-Allow-Origin', origin!);
        response.setHeader('Access-Control-Allow-Credentials', 'true');
      }
    }
    if (allowed) response.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);

    const isPreflight =
      request.method === 'OPTIONS' &&
      origin !== undefined &&
      request.headers['access-control-request-method'] !== undefined;
    if (!isPreflight) {
      next();
      return;
    }
    if (allowed) {
      response.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
      response.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
      response.setHeader('Access-Control-Max-Age', MAX_AGE);
    }
    // A refused origin still gets 204, without CORS headers: the browser then blocks the request.
    response.statusCode = 204;
    response.setHeader('Content-Length', '0');
    response.end();
  };
}
