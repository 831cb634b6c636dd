/**
 * The webhook service's parts and a one-call way to run them all: the gRPC API (subscriptions and
 * the delivery log), the event consumer (fan-out), the delivery workers and the retention job over
 * one database. main.ts runs it from the configuration; tests and other packages start it with
 * their own knobs (startTestWebhookServer in testing.ts).
 *
 *   const webhooks = await startWebhookServer({ databaseUrl, amqpUrl, port: 0, migrate: true });
 *   const client = createServiceClient('webhooks', webhooks.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await webhooks.stop();
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyMigrations,
  createLogger,
  grpcService,
  startGrpcServer,
  type GrpcServiceRegistration,
  type Logger,
  type RunningGrpcServer,
} from '@tix/kit';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './config.js';
import { openDatabase } from './db.js';
import { createDeliveryLogStore } from './deliveries/delivery-log-store.js';
import { createDeliveryQueueStore } from './deliveries/delivery-queue-store.js';
import { startDeliveryWorkers, type DeliveryWorkers } from './delivery/delivery-workers.js';
import { createHttpSender } from './delivery/http-sender.js';
import { systemResolver, type Resolver, type TargetMode } from './delivery/target-policy.js';
import { startEventConsumer, type EventConsumer } from './events/event-consumer.js';
import { createEventFanOut } from './events/fan-out.js';
import { createFanOutStore } from './events/fan-out-store.js';
import { startRetentionJob, type RetentionJob } from './retention/retention-job.js';
import { createSecretBox } from './subscriptions/secret-box.js';
import { createSubscriptionStore } from './subscriptions/subscription-store.js';
import { webhookHandlers } from './webhook-handlers.js';
import type { SubscriptionDeps } from './subscriptions/manage-subscriptions.js';
import type { DeliveryLogDeps } from './deliveries/delivery-log.js';

/** The webhook service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const WEBHOOKS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** The WebhookService registration with a handler for every RPC of the contract. */
export function createWebhookService(deps: SubscriptionDeps & DeliveryLogDeps): GrpcServiceRegistration {
  return grpcService('webhooks', webhookHandlers(deps));
}

export interface StartWebhookServerOptions {
  databaseUrl: string;
  /** The broker to consume domain events from; null runs without a consumer (API and workers only). */
  amqpUrl: string | null;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Apply WEBHOOKS_MIGRATIONS_DIR first (default false). */
  migrate?: boolean;
  /** SSRF policy (default development: http and private targets allowed). */
  targetMode?: TargetMode;
  /** Name resolution for the target policy (default: the system's; tests inject their own). */
  resolver?: Resolver;
  /** 32-byte key sealing signing secrets at rest (default none: stored as given). */
  secretKey?: Buffer | null;
  /** Per attempt (default the spec's 10 s). */
  attemptTimeoutMs?: number;
  /** Attempts in flight overall (default 128) and per target host (default 16). */
  concurrency?: number;
  hostConcurrency?: number;
  /** Broker messages held unacknowledged (default 64). */
  prefetch?: number;
  /** Claim lease (default attempt timeout + 5 s). */
  leaseMs?: number;
  /** Fallback poll for due deliveries (default 1 s). */
  pollIntervalMs?: number;
  /** Delivery log retention (default 30 days). */
  retentionDays?: number;
  /** Pool size (default 20). */
  maxConnections?: number;
  /** Delay before the retry after failed attempt n (default: the spec's policy; tests only). */
  retryDelay?: (attempt: number) => number;
}

export interface RunningWebhookServer {
  port: number;
  /** "host:port", ready for createServiceClient('webhooks', address, ...) or WEBHOOKS_SERVICE_ADDR. */
  address: string;
  health: RunningGrpcServer['health'];
  workers: DeliveryWorkers;
  /** null when started without a broker. */
  consumer: EventConsumer | null;
  retention: RetentionJob;
  /**
   * Stops in order: no new calls or messages, in-flight calls and attempts finish (up to graceMs,
   * default 5 s; unfinished deliveries stay pending and resume later), then closes everything.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Opens the database and runs the whole service until stop(). */
export async function startWebhookServer(options: StartWebhookServerOptions): Promise<RunningWebhookServer> {
  const logger = options.logger ?? createLogger({ service: 'webhooks', level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  if (options.migrate) {
    await applyMigrations({
      connectionString: options.databaseUrl,
      migrationsDir: WEBHOOKS_MIGRATIONS_DIR,
      logger,
    });
  }
  const database = openDatabase(options.databaseUrl, {
    logger,
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  });
  const targetMode = options.targetMode ?? 'development';
  const resolver = options.resolver ?? systemResolver;
  const secrets = createSecretBox(options.secretKey ?? null);
  const timeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const hostConcurrency = options.hostConcurrency ?? 16;

  const workers = startDeliveryWorkers({
    queue: createDeliveryQueueStore(database.pool),
    attempts: {
      sender: createHttpSender({ maxSocketsPerHost: hostConcurrency }),
      secrets,
      targetMode,
      resolver,
      timeoutMs,
      logger,
    },
    logger,
    concurrency: options.concurrency ?? 128,
    hostConcurrency,
    leaseMs: options.leaseMs ?? timeoutMs + 5_000,
    listenUrl: options.databaseUrl,
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
  });
  const retention = startRetentionJob({
    pool: database.pool,
    retentionDays: options.retentionDays ?? 30,
    logger,
  });
  const subscriptions = createSubscriptionStore(database.pool);
  let server: RunningGrpcServer;
  try {
    server = await startGrpcServer({
      host,
      port: options.port ?? 0,
      services: [
        createWebhookService({
          subscriptions,
          secrets,
          targetMode,
          resolver,
          deliveries: createDeliveryLogStore(database.pool),
          onQueued: () => workers.wake(),
        }),
      ],
      logger,
    });
  } catch (error) {
    await workers.stop(0);
    await retention.stop();
    await database.close();
    throw error;
  }
  const consumer = options.amqpUrl
    ? startEventConsumer({
        amqpUrl: options.amqpUrl,
        prefetch: options.prefetch ?? 64,
        logger,
        process: createEventFanOut({
          store: createFanOutStore(database.pool),
          onQueued: () => workers.wake(),
          logger,
        }),
      })
    : null;

  let stopping: Promise<void> | undefined;
  return {
    port: server.port,
    address: `${host}:${server.port}`,
    health: server.health,
    workers,
    consumer,
    retention,
    stop(graceMs = 5_000) {
      stopping ??= (async () => {
        const deadline = Date.now() + graceMs;
        const left = () => Math.max(0, deadline - Date.now());
        await consumer?.stop(left());
        await server.shutdown(left());
        await workers.stop(left());
        await retention.stop();
        await database.close();
      })();
      return stopping;
    },
  };
}
