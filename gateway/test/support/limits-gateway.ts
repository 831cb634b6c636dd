/**
 * Gateways with limits wired, for the rate limit, idempotency and quota tests: the test gateway
 * (test-gateway.ts, the app src/gateway.ts builds) with createGatewayLimits, in front of the given
 * service addresses. Several instances may share one Redis (replicas) under a test-only key prefix,
 * which deleteRedisKeys removes (limitsGatewaysPerTest does after each test).
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { testLogger } from '@tix/kit/testing';
import type { ServiceName } from '@tix/protos';
import { defaultLimitsConfig, type LimitsConfig } from '../../src/limits/config.js';
import { createGatewayLimits, type GatewayLimits } from '../../src/limits/index.js';
import { closeRedis, connectRedis } from '../../src/redis/connect-redis.js';
import { startTestGateway } from './test-gateway.js';

export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export interface LimitsGatewayOptions {
  services: Partial<Record<ServiceName, string>>;
  /** Overrides of the spec defaults. */
  limits?: Partial<LimitsConfig>;
  /** Redis URL, or null for the in-process stores. */
  redisUrl?: string | null;
  /** Shared by replicas that must see the same limits (default: a fresh one). */
  redisKeyPrefix?: string;
  now?: () => number;
}

export interface LimitsGateway {
  apiUrl: string;
  appUrl: string;
  limits: GatewayLimits;
  redisKeyPrefix: string;
  close(): Promise<void>;
}

/** A fresh Redis key prefix for one test (or for replicas sharing it). */
export function testRedisPrefix(): string {
  return `tix:test:${randomBytes(4).toString('hex')}:`;
}

/** Starts one gateway (API and app listeners, see test-gateway.ts) with limits. */
export async function startLimitsGateway(options: LimitsGatewayOptions): Promise<LimitsGateway> {
  const redisKeyPrefix = options.redisKeyPrefix ?? testRedisPrefix();
  const redisUrl = options.redisUrl === undefined ? TEST_REDIS_URL : options.redisUrl;
  const redis = redisUrl
    ? await connectRedis({ url: redisUrl, logger: testLogger('redis'), startupWaitMs: 500 })
    : undefined;
  const limits = createGatewayLimits({
    config: { ...defaultLimitsConfig(), redisKeyPrefix, ...options.limits },
    redis,
    logger: testLogger('limits'),
    claimTtlMs: 65_000,
    now: options.now,
  });
  const gateway = await startTestGateway({ services: options.services, limits });
  return {
    apiUrl: gateway.apiUrl,
    appUrl: gateway.appUrl,
    limits,
    redisKeyPrefix,
    async close() {
      await gateway.close();
      await limits.close();
      if (redis) await closeRedis(redis);
    },
  };
}

/** The gateways of one suite's tests, each closed and its Redis keys deleted after the test. */
export interface LimitsGatewaysPerTest {
  /** Starts one in front of the suite's services (a fresh key prefix unless `options` names one). */
  start: (options?: Partial<LimitsGatewayOptions>) => Promise<LimitsGateway>;
  /** Closes one before its test ends (its process dies); its keys are still deleted after the test. */
  crash: (instance: LimitsGateway) => Promise<void>;
}

/** Call inside a describe: registers the afterEach that closes what start() started. */
export function limitsGatewaysPerTest(
  services: () => Partial<Record<ServiceName, string>>,
): LimitsGatewaysPerTest {
  const running: LimitsGateway[] = [];
  const prefixes: string[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((instance) => instance.close()));
    for (const prefix of prefixes.splice(0)) await deleteRedisKeys(prefix);
  });
  return {
    start: async (options = {}) => {
      const instance = await startLimitsGateway({ services: services(), ...options });
      running.push(instance);
      prefixes.push(instance.redisKeyPrefix);
      return instance;
    },
    crash: async (instance) => {
      running.splice(running.indexOf(instance), 1);
      await instance.close();
    },
  };
}

/** Deletes every Redis key under `prefix` (test clean-up). */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  try {
    for (const key of await client.keys(`${prefix}*`)) await client.del(key);
  } finally {
    await client.close();
  }
}
