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
import pg from 'pg';
import type { DomainEvent } from '@tix/protos';
import { createTestDatabase, testLogger } from '@tix/kit/testing';
import { deliveryBody } from './delivery/signing.js';
import { createFanOutStore, type FanOutResult } from './events/fan-out-store.js';
import {
  startWebhookServer,
  WEBHOOKS_MIGRATIONS_DIR,
  type RunningWebhookServer,
  type StartWebhookServerOptions,
} from './server.js';

export { startWebhookServer, WEBHOOKS_MIGRATIONS_DIR } from './server.js';
export type { RunningWebhookServer, StartWebhookServerOptions } from './server.js';

export interface TestWebhookServerOptions extends Partial<Omit<StartWebhookServerOptions, 'databaseUrl'>> {
  /** Database name label (default "webhooks"). */
  label?: string;
  /** Serve this existing database instead of a fresh one (a restart); stop() then leaves it. */
  databaseUrl?: string;
}

export interface TestWebhookServer extends RunningWebhookServer {
  /** The database it serves (query it directly to arrange or inspect state). */
  databaseUrl: string;
  /**
   * Fans `event` out exactly as the consumer would (no broker needed) and wakes the workers: the
   * way other packages' tests get real deliveries into the log.
   */
  fanOut(event: DomainEvent): Promise<FanOutResult>;
  /** Stops the service and drops its database (unless it was given one). */
  stop(graceMs?: number): Promise<void>;
}

/** Starts a webhook service on 127.0.0.1 (free port) over a fresh, migrated database. */
export async function startTestWebhookServer(
  options: TestWebhookServerOptions = {},
): Promise<TestWebhookServer> {
  const { label, databaseUrl: given, ...rest } = options;
  const database = given
    ? { url: given, drop: () => Promise.resolve() }
    : await createTestDatabase(label ?? 'webhooks', WEBHOOKS_MIGRATIONS_DIR);
  try {
    const server = await startWebhookServer({
      logger: testLogger('webhooks'),
      amqpUrl: null,
      attemptTimeoutMs: 2_000,
      pollIntervalMs: 200,
      ...rest,
      databaseUrl: database.url,
      port: 0,
    });
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const fanOut = createFanOutStore(pool);
    return {
      ...server,
      databaseUrl: database.url,
      async fanOut(event) {
        const result = await fanOut.fanOut({
          eventId: event.id,
          eventType: event.type,
          projectId: event.project_id,
          body: deliveryBody(event),
        });
        server.workers.wake();
        return result;
      },
      stop: (graceMs = 1_000) =>
        server
          .stop(graceMs)
          .then(() => pool.end())
          .finally(() => database.drop()),
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
