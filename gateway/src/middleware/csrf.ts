/**
 * CSRF defence for the app host (spec Authentication 3; notes B.4): POST, PUT, PATCH and DELETE need
 * `X-CSRF-Token` equal to the synchronizer token stored in the caller's session (constant-time
 * comparison), else 403 `Invalid CSRF token`. Defence in depth, before the token: a request a browser
 * labels `Sec-Fetch-Site: cross-site`, or whose `Origin` is neither the host it was sent to nor an
 * origin the operator trusts (CORS_ORIGINS), is refused outright. A sibling subdomain (same-site,
 * e.g. the API host) is refused by the Origin check; a request with no Origin (not a browser) still
 * needs the token.
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

/** Whether `origin` (an Origin header) is the host the request was sent to, or a trusted origin. */
export function isOwnOrTrustedOrigin(
  origin: string,
  host: string | undefined,
  trusted: readonly string[],
): boolean {
  if (trusted.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // "null" (sandboxed documents, file:) and anything unparsable
  }
}

/** Refuses state-changing requests without the session's CSRF token. Runs after loadSession. */
export function requireCsrfToken(options: { trustedOrigins?: readonly string[] } = {}): RequestHandler {
  const trusted = options.trustedOrigins ?? [];
  return (request, _response, next) => {
    if (!STATE_CHANGING.has(request.method)) {
      next();
      return;
    }
    if (request.headers['sec-fetch-site'] === 'cross-site')
      throw AppError.permissionDenied(CROSS_SITE_MESSAGE);
    const origin = request.headers.origin;
    if (origin !== undefined && !isOwnOrTrustedOrigin(origin, request.headers.host, trusted)) {
      throw AppError.permissionDenied(CROSS_SITE_MESSAGE);
    }
    const expected = request.session?.data.csrfToken;
    const given = request.headers['x-csrf-token'];
    if (expected === undefined || typeof given !== 'string' || !tokensMatch(given, expected)) {
      throw AppError.permissionDenied(INVALID_CSRF_TOKEN_MESSAGE);
    }
    next();
  };
}
