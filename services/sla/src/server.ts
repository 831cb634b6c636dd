/**
 * The SLA service (docs/sla.md, "The service"): calendars and policies over gRPC, the consumer that
 * keeps each ticket's clocks from the ticket and comment events, and the timer worker that fires
 * warnings and breaches at their instant; sla.* events leave through its outbox. Its peer is lookup
 * (which statuses are closed). main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defineTixService,
  durableQueue,
  grpcService,
  inTransaction,
  startDomainEventConsumer,
  startTimerWorker,
} from '@tix/kit';
import { FLEET } from '@tix/protos';
import { applyEvent, fireTimer, isTransientClockError } from './clocks.js';
import { createClosedStatuses } from './closed-statuses.js';
import { loadConfig } from './config.js';
import { slaHandlers } from './sla-handlers.js';

export const SLA_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** The durable queue of ticket and comment events (its FLEET entry). */
export const SLA_EVENTS_QUEUE = durableQueue('sla.events', FLEET.sla.queues['sla.events']);

export interface SlaServiceOptions {
  /** The current instant (tests may move it); default the system clock. */
  now?: () => Date;
}

export function slaService(options: SlaServiceOptions = {}) {
  return defineTixService({
    name: 'sla',
    config: loadConfig,
    migrations: SLA_MIGRATIONS_DIR,
    peers: ['lookup'],
    outbox: true,
    register: ({ config, pool, logger, peers }) => {
      const deps = { pool, logger, closedStatuses: createClosedStatuses(peers.lookup), now: options.now };
      return {
        grpc: grpcService('sla', slaHandlers({ pool, now: options.now })),
        consumers: {
          events: () =>
            startDomainEventConsumer({
              url: config.amqpUrl,
              logger,
              name: 'sla clock consumer',
              queue: SLA_EVENTS_QUEUE,
              prefetch: config.prefetch,
              isTransient: isTransientClockError,
              handle: (event) =>
                inTransaction(pool, (tx) => applyEvent(deps, tx, event)).then(() => undefined),
            }),
        },
        workers: {
          timers: startTimerWorker({
            connectionString: config.databaseUrl,
            logger,
            name: 'sla timers',
            handler: (tx, timer) => fireTimer(deps, tx, timer.key, timer.dueAt, timer.payload),
          }),
        },
      };
    },
  });
}
