/**
 * The webhook service: the gRPC API (subscriptions and the delivery log), the event consumer
 * (fan-out), the delivery workers and the retention job over one database. It emits no domain
 * events, so it has no outbox. main.ts runs it; tests start the same composition (testing.ts),
 * with their own name resolution and timings where they need them.
 *
 * On stop, no new calls or messages are taken, attempts in flight finish within the grace period;
 * unfinished deliveries stay pending and resume on the next start or on another replica.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { loadConfig } from './config.js';
import { createDeliveryLogStore } from './delivery/delivery-log-store.js';
import { createDeliveryQueueStore } from './delivery/delivery-queue-store.js';
import { startDeliveryWorkers } from './delivery/delivery-workers.js';
import { createHttpSender } from './delivery/http-sender.js';
import { systemResolver, type Resolver } from './delivery/target-policy.js';
import { startEventConsumer } from './events/event-consumer.js';
import { createEventFanOut } from './events/fan-out.js';
import { createFanOutStore } from './events/fan-out-store.js';
import { startRetentionJob } from './retention/retention-job.js';
import { createSecretBox } from './subscriptions/secret-box.js';
import { createSubscriptionStore } from './subscriptions/subscription-store.js';
import { webhookHandlers } from './webhook-handlers.js';

/** The webhook service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const WEBHOOKS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** What tests may set that production takes from the system and the spec. */
export interface WebhookServiceOptions {
  /** Name resolution for the target policy (default: the system's). */
  resolver?: Resolver;
  /** Delay before the retry after failed attempt n (default: the spec's policy). */
  retryDelay?: (attempt: number) => number;
  /** Claim lease (default attempt timeout + 5 s). */
  leaseMs?: number;
  /** Fallback poll for due deliveries (default 1 s). */
  pollIntervalMs?: number;
}

export function webhookService(options: WebhookServiceOptions = {}) {
  return defineTixService({
    name: 'webhooks',
    config: loadConfig,
    migrations: WEBHOOKS_MIGRATIONS_DIR,
    peers: [],
    outbox: false,
    register: ({ config, pool, logger }) => {
      if (config.secretKey === null)
        logger.warn(
          'WEBHOOK_SECRET_KEY is not set: signing secrets are stored unencrypted (development only)',
        );
      const resolver = options.resolver ?? systemResolver;
      const secrets = createSecretBox(config.secretKey);
      const deliveries = startDeliveryWorkers({
        queue: createDeliveryQueueStore(pool),
        attempts: {
          sender: createHttpSender({ maxSocketsPerHost: config.hostConcurrency }),
          secrets,
          targetMode: config.targetMode,
          resolver,
          timeoutMs: config.attemptTimeoutMs,
          logger,
        },
        logger,
        concurrency: config.concurrency,
        hostConcurrency: config.hostConcurrency,
        leaseMs: options.leaseMs ?? config.attemptTimeoutMs + 5_000,
        listenUrl: config.databaseUrl,
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
        ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
      });
      const wakeDeliveries = () => deliveries.wake();
      return {
        grpc: grpcService(
          'webhooks',
          webhookHandlers({
            subscriptions: createSubscriptionStore(pool),
            secrets,
            targetMode: config.targetMode,
            resolver,
            deliveries: createDeliveryLogStore(pool),
            onQueued: wakeDeliveries,
            ping: {
              subscriptions: createSubscriptionStore(pool),
              attempts: {
                secrets,
                targetMode: config.targetMode,
                resolver,
                timeoutMs: config.attemptTimeoutMs,
                logger,
              },
              newSender: () => createHttpSender({ maxSocketsPerHost: 1 }),
            },
          }),
        ),
        consumers: {
          events: () =>
            startEventConsumer({
              amqpUrl: config.amqpUrl,
              prefetch: config.prefetch,
              logger,
              process: createEventFanOut({
                store: createFanOutStore(pool),
                onQueued: wakeDeliveries,
                logger,
              }),
            }),
        },
        workers: {
          deliveries,
          retention: startRetentionJob({ pool, retentionDays: config.retentionDays, logger }),
        },
      };
    },
  });
}
