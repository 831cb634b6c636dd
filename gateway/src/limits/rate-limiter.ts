/**
 * Which bucket a request counts against, and the middleware that counts it (spec "Rate limits").
 *
 * - An API key: its own bucket (RATE_LIMIT_API_KEY). A signed-in browser session: its own bucket
 *   (RATE_LIMIT_SESSION). Anything else (no credentials, failed authentication, a session that has
 *   not signed in): the client address (RATE_LIMIT_ANONYMOUS).
 * - A route with an override counts against the override's bucket of that caller INSTEAD of the
 *   caller's bucket (otherwise an override above the caller's limit, such as /tickets/{id}/status at
 *   200/min, could never be reached); an override's `countsPer` makes it the client address's or
 *   the user's bucket instead (config.ts). Sign-in endpoints count per client address.
 * - Every limited response carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds, rounded
 *   up, when the oldest counted hit leaves the window); a refused one is 429 with Retry-After.
 * - A request is counted once, by the first of the middlewares below that sees it: right after
 *   authentication in /v1 and /api (also when authentication failed), or before the 404 / error
 *   envelope for requests that never reached a router. Probes and CORS preflights are answered before
 *   any of them and are never counted.
 */
import { createHash } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError } from '@tix/kit';
import type { LimitsConfig, RateLimitRule, RouteRateLimit } from './config.js';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.js';

/** Sign-in endpoints of the session host (the spec's "Auth endpoints (login, register)"). */
export const AUTH_ENDPOINTS: readonly string[] = ['/auth/login', '/auth/register'];

export interface RateLimitTarget {
  bucket: string;
  rule: RateLimitRule;
}

interface CompiledRoute {
  segments: string[];
  route: RouteRateLimit;
}

/** Compiles patterns, most specific first (fewer `*`), so `/search/ai` wins over `/search/*`. */
export function compileRoutes(routes: readonly RouteRateLimit[]): CompiledRoute[] {
  const wildcards = (pattern: string) => pattern.split('*').length - 1;
  return [...routes]
    .sort((a, b) => wildcards(a.pattern) - wildcards(b.pattern))
    .map((route) => ({ segments: route.pattern.split('/').slice(1), route }));
}

/** The override for a path below /v1 or /api (`/tickets/7/status`), if any. */
export function matchRoute(routes: readonly CompiledRoute[], path: string): RouteRateLimit | undefined {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed.toLowerCase().split('/').slice(1);
  for (const { segments: pattern, route } of routes) {
    if (pattern.length !== segments.length) continue;
    if (pattern.every((part, index) => part === '*' || part === segments[index])) return route;
  }
  return undefined;
}

/** "::ffff:10.0.0.1" -> "10.0.0.1"; IPv6 addresses -> their /64 (one subscriber usually holds a /64). */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [
        ...headGroups,
        ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'),
        ...tailGroups,
      ]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The client's address: the socket peer, or with `trustedHops` proxies in front, the entry of
 * X-Forwarded-For that the outermost trusted proxy saw (entries further left are client-made).
 */
export function clientAddress(request: Request, trustedHops: number): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustedHops === 0) return peer;
  const header = request.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}

/**
 * Decides the bucket and rule of a request (see the file header); given a `path`, those of the same
 * caller on that path instead.
 */
export function createTargetResolver(
  config: LimitsConfig,
): (request: Request, path?: string) => RateLimitTarget {
  const routes = compileRoutes(config.routes);
  const authEndpoints = new Set(AUTH_ENDPOINTS);
  // The path is below the router's mount point (/v1 or /api); for requests that reached none, whole.
  return (request, path = request.path) => {
    const principal = request.principal;
    const address = () => `anon:${addressBucket(clientAddress(request, config.trustProxyHops))}`;
    if (request.hostRole === 'app' && authEndpoints.has(path.toLowerCase())) {
      return { bucket: `auth:${address()}`, rule: config.auth };
    }
    const route = matchRoute(routes, path);
    let caller: string;
    let rule: RateLimitRule;
    if (route?.countsPer === 'user' && principal) {
      caller = `user:${principal.user_id}`;
      rule = config.session;
    } else if (route?.countsPer === 'address') {
      caller = address();
      rule = config.anonymous;
    } else if (principal?.kind === 'api_key') {
      caller = `key:${principal.key_id ?? `user${principal.user_id}`}`;
      rule = config.apiKey;
    } else if (principal?.kind === 'session' && request.session) {
      // Hashed like the session store's keys: a dump of Redis must not reveal usable session ids.
      caller = `sess:${createHash('sha256').update(request.session.id).digest('hex').slice(0, 32)}`;
      rule = config.session;
    } else {
      caller = address();
      rule = config.anonymous;
    }
    return route ? { bucket: `route:${route.pattern}:${caller}`, rule: route } : { bucket: caller, rule };
  };
}

/** Unix seconds at which the decision's window frees a slot (rounded up: never too early). */
export function resetSeconds(decision: RateLimitDecision): number {
  return Math.ceil(decision.resetAtMs / 1000);
}

/** Seconds a refused caller should wait (at least 1). */
export function retryAfterSeconds(decision: RateLimitDecision): number {
  return Math.max(1, Math.ceil((decision.resetAtMs - decision.nowMs) / 1000));
}

export function rateLimitExceeded(decision: RateLimitDecision): AppError {
  const seconds = retryAfterSeconds(decision);
  return new AppError(
    'rate_limited',
    `Rate limit exceeded: ${decision.limit} requests per window. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`,
  );
}

/** A caller's budget on a route, as a peek found it, with the window it is counted over. */
export interface RateLimitBudget extends RateLimitDecision {
  windowMs: number;
}

export interface RateLimiter {
  /** Counts the request (once); throws the 429 AppError when refused. */
  limit(request: Request, response: Response): Promise<void>;
  /**
   * What is left of this request's caller's budget on `path` (below /v1 or /api), counting nothing:
   * for a route that reports a budget it does not spend (/ai/suggest-reply/availability).
   */
  budget(request: Request, path: string): Promise<RateLimitBudget>;
  /** Middleware: count the request, then continue. */
  middleware: RequestHandler;
  /** Error middleware: count a request that failed before being counted (e.g. 401), keep its error. */
  onError: ErrorRequestHandler;
}

/** The rate limiter over `store` (see the file header). */
export function createRateLimiter(config: LimitsConfig, store: RateLimitStore): RateLimiter {
  const resolve = createTargetResolver(config);
  const counted = new WeakSet<Request>();

  const limit = async (request: Request, response: Response) => {
    if (counted.has(request)) return;
    counted.add(request);
    const { bucket, rule } = resolve(request);
    const decision = await store.take(bucket, rule.limit, rule.windowMs);
    response.setHeader('X-RateLimit-Limit', String(decision.limit));
    response.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    response.setHeader('X-RateLimit-Reset', String(resetSeconds(decision)));
    if (!decision.allowed) {
      response.setHeader('Retry-After', String(retryAfterSeconds(decision)));
      throw rateLimitExceeded(decision);
    }
  };

  return {
    limit,
    async budget(request, path) {
      const { bucket, rule } = resolve(request, path);
      return { ...(await store.peek(bucket, rule.limit, rule.windowMs)), windowMs: rule.windowMs };
    },
    middleware: async (request, response, next) => {
      await limit(request, response);
      next();
    },
    onError: async (error: unknown, request, response, next) => {
      if (response.headersSent || counted.has(request)) {
        next(error);
        return;
      }
      try {
        await limit(request, response);
      } catch (refused) {
        // Over the limit: the 429 replaces the original error (a flood of bad keys learns nothing more).
        next(refused);
        return;
      }
      next(error);
    },
  };
}
