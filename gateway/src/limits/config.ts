/**
 * Limit settings from the environment (spec "Limits" and "Idempotency"), spread into the gateway's
 * env schema by config.ts. Defaults are the spec's tables; operators change them with
 * RATE_LIMIT_<CALLER>=<requests>/<seconds> and RATE_LIMIT_ROUTES.
 */
import { z } from 'zod';
import { env } from '@tix/kit';

/** At most `limit` requests in any `windowMs` (sliding). */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** A per-route override: `pattern` is a path below /v1 or /api, `*` standing for one segment. */
export interface RouteRateLimit extends RateLimitRule {
  pattern: string;
  /**
   * Whose budget it is, when not the caller's usual one (key, session, else address): `address`
   * even for a signed-in caller, `user` across all of a user's sessions. Either way signing in
   * again buys nothing (password reset mails and attempts; the data export).
   */
  countsPer?: 'address' | 'user';
}

export interface LimitsConfig {
  rateLimitsEnabled: boolean;
  apiKey: RateLimitRule;
  session: RateLimitRule;
  anonymous: RateLimitRule;
  /** The session host's sign-in endpoints (login, register), per client address. */
  auth: RateLimitRule;
  routes: RouteRateLimit[];
  idempotencyEnabled: boolean;
  /** Calls an API key owner may make in all before a plan is needed; null = no such quota. */
  quotaFreeAllowance: number | null;
  /** Calls an API key owner may make per calendar month (UTC); null = no such quota. */
  quotaMonthlyLimit: number | null;
  /** Proxies in front of the gateway whose X-Forwarded-For entries are trusted (client address). */
  trustProxyHops: number;
  /** Prefix of the limits' Redis keys (deployments sharing one Redis keep apart with their own). */
  redisKeyPrefix: string;
}

const MAX_WINDOW_SECONDS = 86_400;

/** "100/60" -> 100 requests per 60 s; the count may be written 1e9. */
export function parseRateLimitRule(value: string): RateLimitRule | undefined {
  const match = /^\s*(\d+(?:e\d+)?)\s*\/\s*(\d+)\s*$/i.exec(value);
  if (!match) return undefined;
  const limit = Number(match[1]);
  const seconds = Number(match[2]);
  if (!Number.isSafeInteger(limit) || limit < 1) return undefined;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_WINDOW_SECONDS) return undefined;
  return { limit, windowMs: seconds * 1000 };
}

const PATTERN = /^(\/([a-z0-9._~-]+|\*))+$/;

/** The spec's per-route table. Routes the gateway does not serve (yet) cost nothing. */
export const DEFAULT_ROUTE_LIMITS: readonly RouteRateLimit[] = [
  { pattern: '/search/*', limit: 10, windowMs: 60_000 },
  // Per person: signing in again must not give a fresh quota.
  { pattern: '/ai/suggest-reply', limit: 30, windowMs: 3_600_000, countsPer: 'user' },
  { pattern: '/search/ai', limit: 60, windowMs: 3_600_000 },
  { pattern: '/auth/forgot-password', limit: 5, windowMs: 3_600_000, countsPer: 'address' },
  { pattern: '/auth/reset-password', limit: 10, windowMs: 3_600_000, countsPer: 'address' },
  { pattern: '/me/data-export', limit: 3, windowMs: 3_600_000, countsPer: 'user' },
  { pattern: '/client-errors', limit: 30, windowMs: 60_000 },
  { pattern: '/tickets/*/status', limit: 200, windowMs: 60_000 },
];

/**
 * RATE_LIMIT_ROUTES: `pattern=N/S` items separated by commas, each replacing the default of that
 * pattern or adding one; `pattern=off` removes a default. Undefined when malformed.
 */
export function parseRouteLimits(value: string): RouteRateLimit[] | undefined {
  const routes = new Map(DEFAULT_ROUTE_LIMITS.map((route) => [route.pattern, route]));
  for (const item of value.split(',').map((part) => part.trim())) {
    if (item === '') continue;
    const equals = item.lastIndexOf('=');
    if (equals === -1) return undefined;
    const pattern = item.slice(0, equals).trim().toLowerCase();
    const setting = item.slice(equals + 1).trim();
    if (!PATTERN.test(pattern)) return undefined;
    if (setting.toLowerCase() === 'off') {
      routes.delete(pattern);
      continue;
    }
    const rule = parseRateLimitRule(setting);
    if (!rule) return undefined;
    // A new limit for a default route keeps whose budget it is.
    routes.set(pattern, { ...routes.get(pattern), pattern, ...rule });
  }
  return [...routes.values()];
}

const rule = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((value) => parseRateLimitRule(value) !== undefined, 'expected <requests>/<seconds>, e.g. 100/60');

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** The variables this module reads, for the gateway's env schema. */
export const LIMITS_ENV = {
  RATE_LIMITS_ENABLED: env.boolean(true),
  RATE_LIMIT_API_KEY: rule('100/60'),
  RATE_LIMIT_SESSION: rule('250/60'),
  RATE_LIMIT_ANONYMOUS: rule('30/60'),
  RATE_LIMIT_AUTH: rule('10/60'),
  RATE_LIMIT_ROUTES: z
    .string()
    .default('')
    .refine(
      (value) => parseRouteLimits(value) !== undefined,
      'expected a comma list of /path/pattern=<requests>/<seconds> or /path/pattern=off',
    ),
  IDEMPOTENCY_ENABLED: env.boolean(true),
  QUOTA_FREE_ALLOWANCE: nonNegativeInt(0),
  QUOTA_MONTHLY_LIMIT: nonNegativeInt(0),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LIMITS_REDIS_PREFIX: z
    .string()
    .default('tix:')
    .refine((value) => /^[\x21-\x7e]{1,64}$/.test(value), 'expected 1 to 64 visible ASCII characters'),
};

type LimitsEnv = { [K in keyof typeof LIMITS_ENV]: z.infer<(typeof LIMITS_ENV)[K]> };

/** The limits configuration from the parsed variables (already validated by LIMITS_ENV). */
export function limitsConfigFrom(value: LimitsEnv): LimitsConfig {
  return {
    rateLimitsEnabled: value.RATE_LIMITS_ENABLED,
    apiKey: parseRateLimitRule(value.RATE_LIMIT_API_KEY)!,
    session: parseRateLimitRule(value.RATE_LIMIT_SESSION)!,
    anonymous: parseRateLimitRule(value.RATE_LIMIT_ANONYMOUS)!,
    auth: parseRateLimitRule(value.RATE_LIMIT_AUTH)!,
    routes: parseRouteLimits(value.RATE_LIMIT_ROUTES)!,
    idempotencyEnabled: value.IDEMPOTENCY_ENABLED,
    quotaFreeAllowance: value.QUOTA_FREE_ALLOWANCE === 0 ? null : value.QUOTA_FREE_ALLOWANCE,
    quotaMonthlyLimit: value.QUOTA_MONTHLY_LIMIT === 0 ? null : value.QUOTA_MONTHLY_LIMIT,
    trustProxyHops: value.TRUST_PROXY_HOPS,
    redisKeyPrefix: value.LIMITS_REDIS_PREFIX,
  };
}

/** The spec's defaults (what an empty environment gives). */
export function defaultLimitsConfig(): LimitsConfig {
  return limitsConfigFrom(z.object(LIMITS_ENV).parse({}));
}
