/**
 * CSRF defence for the app host (spec Authentication 3; notes B.4): POST, PUT, PATCH and DELETE need
 * `X-CSRF-Token` equal to the synchronizer token stored in the caller's session (constant-time
 * comparison), else 403 `Invalid CSRF token`. Requests a browser labels `Sec-Fetch-Site: cross-site`
 * are refused outright (defence in depth).
 */
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';

export const INVALID_CSRF_TOKEN_MESSAGE = 'Invalid CSRF token';
export const CROSS_SITE_MESSAGE = 'Cross-site requests are not allowed';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Constant-time equality of two tokens (lengths are compared first; timingSafeEqual needs equal sizes). */
export function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Refuses state-changing requests without the session's CSRF token. Runs after loadSession. */
export function requireCsrfToken(): RequestHandler {
  return (request, _response, next) => {
    if (!STATE_CHANGING.has(request.method)) {
      next();
      return;
    }
    if (request.headers['sec-fetch-site'] === 'cross-site')
      throw AppError.permissionDenied(CROSS_SITE_MESSAGE);
    const expected = request.session?.data.csrfToken;
    const given = request.headers['x-csrf-token'];
    if (expected === undefined || typeof given !== 'string' || !tokensMatch(given, expected)) {
      throw AppError.permissionDenied(INVALID_CSRF_TOKEN_MESSAGE);
    }
    next();
  };
}
