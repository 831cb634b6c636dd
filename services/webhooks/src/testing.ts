/**
 * A real webhook service for integration tests (this package's, the gateway's): a fresh migrated
 * database plus the whole service (gRPC API, consumer, workers) on a free port, removed again by
 * stop(). Give it a broker (createTestVhost(...).url) to consume events.
 *
 *   import { startTestWebhookServer } from '@tix/webhook-service/testing';
 *   const webhooks = await startTestWebhookServer({ amqpUrl: vhost.url });
 *   const client = createServiceClient('webhooks', webhooks.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await webhooks.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import type { WebhooksConfig } from './config.js';
import { deliveryBody } from './delivery/signing.js';
import { createFanOutStore, type FanOutResult } from './events/fan-out-store.js';
import { webhookService, type WebhookServiceOptions } from './server.js';

export { WEBHOOKS_MIGRATIONS_DIR } from './server.js';

type ConfigOverrides = Partial<
  Pick<
    WebhooksConfig,
    | 'targetMode'
    | 'secretKey'
    | 'attemptTimeoutMs'
    | 'concurrency'
    | 'hostConcurrency'
    | 'prefetch'
    | 'retentionDays'
  >
>;

export interface TestWebhookServerOptions extends WebhookServiceOptions, ConfigOverrides {
  /** Database name label (default "webhooks"). */
  label?: string;
  /** Serve this existing database instead of a fresh one (a restart); stop() then leaves it. */
  databaseUrl?: string;
  logger?: Logger;
  /** The broker to consume domain events from; without it the service runs its API and workers only. */
  amqpUrl?: string;
}

export type TestWebhookServer = Awaited<ReturnType<typeof startTestWebhookServer>>;

/**
 * Starts a webhook service on 127.0.0.1 (free port) over a fresh, migrated database (attempts time
 * out after 2 s, due deliveries are polled every 200 ms, unless the options say otherwise).
 */
export async function startTestWebhookServer(options: TestWebhookServerOptions = {}) {
  const { label, databaseUrl, logger, amqpUrl, resolver, retryDelay, leaseMs, pollIntervalMs, ...config } =
    options;
  const service = await startTestService(
    webhookService({ resolver, retryDelay, leaseMs, pollIntervalMs: pollIntervalMs ?? 200 }),
    { label, databaseUrl, logger, amqpUrl, config: { attemptTimeoutMs: 2_000, ...config } },
  );
  const fanOutStore = createFanOutStore(service.pool);
  const workers = service.parts.workers.deliveries;
  return {
    ...service,
    workers,
    retention: service.parts.workers.retention,
    /** null when started without a broker. */
    consumer: service.consumers.events ?? null,
    /**
     * Fans `event` out exactly as the consumer would (no broker needed) and wakes the workers: the
     * way other packages' tests get real deliveries into the log.
     */
    async fanOut(event: DomainEvent): Promise<FanOutResult> {
      const result = await fanOutStore.fanOut({
        eventId: event.id,
        eventType: event.type,
        projectId: event.project_id,
        body: deliveryBody(event),
      });
      workers.wake();
      return result;
    },
  };
}
