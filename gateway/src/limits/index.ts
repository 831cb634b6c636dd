/**
 * The gateway's limits, assembled from config: sliding-window rate limits, 402 quotas and
 * Idempotency-Key handling, in Redis when REDIS_URL is set (shared by replicas, failing open to the
 * in-process stores while Redis is down) and in process otherwise. The routers mount them in this
 * order: authentication -> rate limit -> quota -> body parsing -> idempotency -> route.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Logger } from '@tix/kit';
import type { LimitsConfig } from './config.js';
import { idempotency } from './idempotency.js';
import {
  createMemoryIdempotencyStore,
  createRedisIdempotencyStore,
  type IdempotencyStore,
} from './idempotency-store.js';
import { createMemoryQuotaStore, createRedisQuotaStore, quota, type QuotaStore } from './quota.js';
import { createRateLimiter, type RateLimitBudget } from './rate-limiter.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';
import type { RedisClient } from '../redis/connect-redis.js';
import { RedisFallback, type LimitsBackend } from './redis-backend.js';
import { createRedisRateLimitStore } from './redis-rate-limit-store.js';

export type { LimitsBackend } from './redis-backend.js';
export type { LimitsConfig } from './config.js';
export type { RateLimitBudget } from './rate-limiter.js';

type Middleware = RequestHandler | ErrorRequestHandler;

export interface GatewayLimits {
  /** Right after authentication in /v1 and /api: rate limit (also for failed authentication), quota. */
  afterAuthentication: Middleware[];
  /** After body parsing in /v1 and /api: Idempotency-Key. */
  afterBodyParsing: Middleware[];
  /** Before the app's 404 and error envelope: rate limit for requests no router counted. */
  beforeNotFound: Middleware[];
  /**
   * What is left of the caller's rate limit budget on `path` (below /v1 or /api), counting nothing;
   * null when rate limits are off.
   */
  budget(request: Request, path: string): Promise<RateLimitBudget | null>;
  /** Where the limits live now, for /readyz. */
  backend(): LimitsBackend;
  close(): Promise<void>;
}

export interface GatewayLimitsOptions {
  config: LimitsConfig;
  /** The gateway's Redis client when REDIS_URL is set (its owner closes it). */
  redis?: RedisClient;
  logger: Logger;
  /** How long an idempotency claim outlives a request that never finishes (crashed gateway). */
  claimTtlMs: number;
  /** The clock of the in-memory stores and of quota months (tests). */
  now?: () => number;
}

/** Builds the limits (on Redis when a client is given and anything is enabled). */
export function createGatewayLimits(options: GatewayLimitsOptions): GatewayLimits {
  const { config, logger } = options;
  const quotaLimits = { freeAllowance: config.quotaFreeAllowance, monthlyLimit: config.quotaMonthlyLimit };
  const quotasEnabled = quotaLimits.freeAllowance !== null || quotaLimits.monthlyLimit !== null;
  const anythingEnabled = config.rateLimitsEnabled || config.idempotencyEnabled || quotasEnabled;

  const memoryRates = createMemoryRateLimitStore({ now: options.now });
  const memoryIdempotency = createMemoryIdempotencyStore({ now: options.now });
  const memoryQuotas = createMemoryQuotaStore();
  let rates: RateLimitStore = memoryRates;
  let idempotencyStore: IdempotencyStore = memoryIdempotency;
  let quotas: QuotaStore = memoryQuotas;
  const client = anythingEnabled ? options.redis : undefined;
  let fallback: RedisFallback | undefined;

  if (client) {
    const prefix = config.redisKeyPrefix;
    const redis = {
      rates: createRedisRateLimitStore(client, `${prefix}rl:`),
      idempotency: createRedisIdempotencyStore(client, `${prefix}idem:`),
      quotas: createRedisQuotaStore(client, `${prefix}quota:`),
    };
    const guard = new RedisFallback(client, logger);
    fallback = guard;
    rates = guard.store(redis.rates, memoryRates, ['take', 'peek']);
    idempotencyStore = guard.store(redis.idempotency, memoryIdempotency, ['claim', 'complete', 'release']);
    quotas = guard.store(redis.quotas, memoryQuotas, ['take']);
  }

  const afterAuthentication: Middleware[] = [];
  const beforeNotFound: Middleware[] = [];
  const limiter = config.rateLimitsEnabled ? createRateLimiter(config, rates) : undefined;
  if (limiter) {
    afterAuthentication.push(limiter.onError, limiter.middleware);
    beforeNotFound.push(limiter.middleware, limiter.onError);
  }
  if (quotasEnabled)
    afterAuthentication.push(quota({ store: quotas, limits: quotaLimits, now: options.now }));
  const afterBodyParsing: Middleware[] = config.idempotencyEnabled
    ? [idempotency({ store: idempotencyStore, claimTtlMs: options.claimTtlMs })]
    : [];

  return {
    afterAuthentication,
    afterBodyParsing,
    beforeNotFound,
    budget: (request, path) => (limiter ? limiter.budget(request, path) : Promise.resolve(null)),
    backend() {
      if (!anythingEnabled) return 'disabled';
      return fallback ? fallback.backend : 'in_memory';
    },
    async close() {
      await Promise.all([memoryRates.close(), memoryIdempotency.close(), memoryQuotas.close()]);
    },
  };
}
