/**
 * Gateways with limits wired, for the rate limit, idempotency and quota tests: the same app as
 * src/gateway.ts builds (createApp + createGatewayLimits) on loopback listeners (port 0), in front of
 * the given service addresses. Several instances may share one Redis (replicas) under a test-only key
 * prefix, which close() removes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { testLogger } from '@tix/kit/testing';
import type { ServiceName } from '@tix/protos';
import { createApp, type AppDeps } from '../../src/app.js';
import { createApiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';
import { defaultLimitsConfig, type LimitsConfig } from '../../src/limits/config.js';
import { createGatewayLimits, type GatewayLimits } from '../../src/limits/index.js';
import { createMailTransport } from '../../src/mail/mail-transport.js';
import { createPasswordResetMailer } from '../../src/mail/password-reset-mail.js';
import { createProjectResolver } from '../../src/projects/project-resolver.js';
import { DEFAULT_ATTACHMENT_MAX_BYTES } from '../../src/routes/v1/attachments.schemas.js';
import { closeRedis, connectRedis } from '../../src/redis/connect-redis.js';
import { closeServiceClients, createServiceClients } from '../../src/services.js';
import { createMemorySessionStore } from '../../src/sessions/session-store.js';
import { TEST_MAIL_DIR } from './test-gateway.js';

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

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/** A fresh Redis key prefix for one test (or for replicas sharing it). */
export function testRedisPrefix(): string {
  return `tix:test:${randomBytes(4).toString('hex')}:`;
}

/** Starts one gateway (API and app listeners) with limits. */
export async function startLimitsGateway(options: LimitsGatewayOptions): Promise<LimitsGateway> {
  const addresses: Record<ServiceName, string | null> = {
    lookup: options.services.lookup ?? null,
    tickets: options.services.tickets ?? null,
    comments: options.services.comments ?? null,
    attachments: options.services.attachments ?? null,
    webhooks: options.services.webhooks ?? null,
    activity: options.services.activity ?? null,
    ai: options.services.ai ?? null,
  };
  const services = createServiceClients(addresses, 5_000);
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
  const deps: Omit<AppDeps, 'listenerRole'> = {
    apiHosts: [],
    appHosts: [],
    cors: { mode: 'wildcard' },
    bodyLimitBytes: 1024 * 1024,
    attachments: { maxBytes: DEFAULT_ATTACHMENT_MAX_BYTES, transferDeadlineMs: 600_000 },
    readinessTimeoutMs: 500,
    logger: testLogger('gateway'),
    services,
    apiKeys: createApiKeyAuthenticator({ lookup: services.lookup, ttlMs: 60_000 }),
    projects: createProjectResolver({ lookup: services.lookup, ttlMs: 30_000 }),
    sessions: { store: createMemorySessionStore({ ttlSeconds: 3600 }), secureCookie: false },
    isShuttingDown: () => false,
    limits,
    passwordResetMail: createPasswordResetMailer(
      createMailTransport(
        { smtpUrl: undefined, from: 'Tix <no-reply@localhost>', dir: TEST_MAIL_DIR },
        testLogger('mail'),
      ),
      'http://localhost:8081',
    ),
  };
  const servers = (['api', 'app'] as const).map((role) =>
    http.createServer(createApp({ ...deps, listenerRole: role })),
  );
  const [apiUrl, appUrl] = await Promise.all(servers.map(listen));
  return {
    apiUrl: apiUrl!,
    appUrl: appUrl!,
    limits,
    redisKeyPrefix,
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
      await limits.close();
      if (redis) await closeRedis(redis);
      closeServiceClients(services);
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
