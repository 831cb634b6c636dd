/**
 * A real activity service for integration tests (this package's, the gateway's): a fresh migrated
 * database plus the whole service (gRPC API, consumer, retention) on a free port, removed again by
 * stop(). It needs a lookup service (actor names); give it a broker to consume events.
 *
 *   import { startTestActivityServer } from '@tix/activity-service/testing';
 *   const activity = await startTestActivityServer({ lookupAddress: lookup.address, amqpUrl: vhost.url });
 *   const client = createServiceClient('activity', activity.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await activity.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import { foldEvent } from './log/fold.js';
import { createLogStore, type RecordOutcome } from './log/log-store.js';
import { sweepLogs, type SweepCounts } from './retention/retention.js';
import { activityService, type ActivityServiceOptions } from './server.js';

export { ACTIVITY_MIGRATIONS_DIR } from './server.js';

export interface TestActivityServerOptions extends ActivityServiceOptions {
  /** "host:port" of the lookup service. */
  lookupAddress: string;
  label?: string;
  /** Serve this existing database instead of a fresh one (a restart); stop() then leaves it. */
  databaseUrl?: string;
  logger?: Logger;
  /** The broker to consume domain events from; without it the service serves its API only. */
  amqpUrl?: string;
  retentionDays?: number;
  prefetch?: number;
}

export type TestActivityServer = Awaited<ReturnType<typeof startTestActivityServer>>;

/** Starts an activity service on 127.0.0.1 (free port) over a fresh, migrated database. */
export async function startTestActivityServer(options: TestActivityServerOptions) {
  const { lookupAddress, label, databaseUrl, logger, amqpUrl, retentionIntervalMs, ...config } = options;
  const service = await startTestService(activityService({ retentionIntervalMs }), {
    label,
    databaseUrl,
    logger,
    amqpUrl,
    config: { peers: { lookup: lookupAddress }, ...config },
  });
  const log = createLogStore(service.pool);
  return {
    ...service,
    /** null when started without a broker. */
    consumer: service.consumers.events ?? null,
    /** Records `event` exactly as the consumer would (no broker needed). */
    record: (event: DomainEvent): Promise<RecordOutcome> => log.record(foldEvent(event)),
    /** Runs the retention sweep now with `cutoff` (what was recorded before it goes). */
    sweep: (cutoff: Date): Promise<SweepCounts> => sweepLogs(service.pool, cutoff),
  };
}
