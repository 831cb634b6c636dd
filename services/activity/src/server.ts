/**
 * The activity service: the consumer that folds domain events into the activity log and the event
 * stream, the gRPC API that reads them (the feed, a ticket's history, the stream), and the retention
 * sweep, over one database. It emits no events (no outbox); its peer is lookup, for actor names.
 * main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { activityHandlers } from './activity-handlers.js';
import { loadConfig } from './config.js';
import { createFeedStore } from './feed/feed-store.js';
import { createPeople } from './feed/people.js';
import { startActivityConsumer } from './log/event-consumer.js';
import { createLogStore } from './log/log-store.js';
import { startRetentionJob } from './retention/retention.js';
import { createEventStreamStore } from './stream/event-stream-store.js';

/** The activity service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const ACTIVITY_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface ActivityServiceOptions {
  /** Interval of the retention sweep (default one hour). */
  retentionIntervalMs?: number;
}

export function activityService(options: ActivityServiceOptions = {}) {
  return defineTixService({
    name: 'activity',
    config: loadConfig,
    migrations: ACTIVITY_MIGRATIONS_DIR,
    peers: ['lookup'],
    outbox: false,
    register: ({ config, pool, logger, peers }) => {
      const feed = createFeedStore(pool);
      const log = createLogStore(pool);
      return {
        grpc: grpcService(
          'activity',
          activityHandlers({
            feed,
            stream: createEventStreamStore(pool),
            people: createPeople({ lookup: peers.lookup, logger }),
          }),
        ),
        consumers: {
          events: () =>
            startActivityConsumer({ amqpUrl: config.amqpUrl, prefetch: config.prefetch, logger, log }),
        },
        workers: {
          retention: startRetentionJob({
            pool,
            retentionDays: config.retentionDays,
            logger,
            ...(options.retentionIntervalMs === undefined ? {} : { intervalMs: options.retentionIntervalMs }),
          }),
        },
      };
    },
  });
}
