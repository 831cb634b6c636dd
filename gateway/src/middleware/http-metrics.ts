/**
 * Request metrics of the gateway: `tix_http_requests_total{method,route,status}` and
 * `tix_http_request_duration_seconds{method,route,status}`, recorded when the response is done.
 *
 * `route` is the pattern of the route that handled the request (/v1/tickets/:id), never the raw URL,
 * so the number of series stays bounded whatever callers send. Requests answered before any route
 * matched (unknown paths, and refusals that come first: 401 without a key, 403 without the CSRF
 * token, a bad body) count as "unmatched"; their status tells them apart. A client that goes away
 * before its response is complete counts with status 499 (as nginx logs it).
 */
import type { Express, Request, RequestHandler } from 'express';
import { defineCounter, defineHistogram, LATENCY_BUCKETS, secondsSince } from '@tix/kit';

export const UNMATCHED_ROUTE = 'unmatched';
const CLIENT_CLOSED_REQUEST = 499;
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const routePatterns = new WeakMap<Request, string>();
const matchedRoutes = new WeakMap<Request, unknown>();

/**
 * Remembers the full pattern of the route that handles a request. Express sets `request.route` when
 * a route matches, while `request.baseUrl` still holds the mount path of the router it belongs to;
 * by the time the response finishes an error may have unwound baseUrl, so the pair is read at once.
 */
export function installRoutePatternCapture(app: Express): void {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    get(this: Request) {
      return matchedRoutes.get(this);
    },
    set(this: Request, route: unknown) {
      matchedRoutes.set(this, route);
      const path = (route as { path?: unknown } | undefined)?.path;
      if (typeof path === 'string') routePatterns.set(this, `${this.baseUrl}${path}`);
    },
  });
}

/** The route pattern that handled `request`, or "unmatched". */
export function routePatternOf(request: Request): string {
  return routePatterns.get(request) ?? UNMATCHED_ROUTE;
}

/** Counts and times every request; mount it first (after installRoutePatternCapture). */
export function httpMetrics(): RequestHandler {
  const requests = defineCounter({
    name: 'tix_http_requests_total',
    help: 'HTTP requests the gateway answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
  });
  const duration = defineHistogram({
    name: 'tix_http_request_duration_seconds',
    help: 'Time from a request arriving at the gateway to its response being sent, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
  });
  return (request, response, next) => {
    const startedAt = process.hrtime.bigint();
    response.once('close', () => {
      const labels = {
        // Arbitrary method names must not mint new series.
        method: KNOWN_METHODS.has(request.method) ? request.method : 'OTHER',
        route: routePatternOf(request),
        status: String(response.writableFinished ? response.statusCode : CLIENT_CLOSED_REQUEST),
      };
      requests.inc(labels);
      duration.observe(labels, secondsSince(startedAt));
    });
    next();
  };
}
