/**
 * The ticket service: its stores and the lookup service (cached) -> use cases -> handlers, relaying
 * its outbox, with the idempotency sweep. main.ts runs it; tests start the same composition
 * (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { loadConfig } from './config.js';
import { exportUserTicketsHandler } from './export/export-user-tickets.js';
import { fieldAuditHandlers } from './field-audit/field-audit-handlers.js';
import { createFieldValuesStore } from './field-audit/field-values-store.js';
import { startCustomerEventConsumer } from './customer-events/customer-event-consumer.js';
import { createCustomerTicketsStore } from './customer-events/customer-tickets-store.js';
import { createLookupDirectory } from './lookup/lookup-directory.js';
import { startLookupEventConsumer } from './lookup-events/lookup-event-consumer.js';
import { statusCountHandlers } from './lookup-events/status-count-handler.js';
import { createStatusTicketsStore } from './lookup-events/status-tickets-store.js';
import { startIdempotencySweep } from './tickets/idempotency-sweep.js';
import { ticketHandlers } from './ticket-handlers.js';
import { createTicketReadStore } from './tickets/ticket-read-store.js';
import { createTicketWriteStore } from './tickets/ticket-write-store.js';

/** The ticket service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const TICKETS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export const ticketService = defineTixService({
  name: 'tickets',
  config: loadConfig,
  migrations: TICKETS_MIGRATIONS_DIR,
  peers: ['lookup'],
  outbox: true,
  register: ({ config, pool, peers, logger }) => {
    // One directory for the handlers, the export and the lookup-events consumer (which forgets its entries).
    const lookup = createLookupDirectory({ client: peers.lookup, ttls: config.cacheTtls });
    const writes = createTicketWriteStore(pool);
    const statusTickets = createStatusTicketsStore(pool);
    return {
      grpc: grpcService('tickets', {
        ...ticketHandlers({ reads: createTicketReadStore(pool), writes, lookup }),
        ...statusCountHandlers(statusTickets),
        ...fieldAuditHandlers(createFieldValuesStore(pool)),
        ExportUserTickets: exportUserTicketsHandler({ pool, lookup }),
      }),
      workers: { idempotencySweep: startIdempotencySweep({ pool, logger }) },
      consumers: {
        lookupEvents: () =>
          startLookupEventConsumer({
            amqpUrl: config.amqpUrl,
            logger,
            lookup,
            tickets: statusTickets,
            writes,
          }),
        customerEvents: () =>
          startCustomerEventConsumer({
            amqpUrl: config.amqpUrl,
            logger,
            lookup,
            tickets: createCustomerTicketsStore(pool),
            writes,
          }),
      },
    };
  },
});
