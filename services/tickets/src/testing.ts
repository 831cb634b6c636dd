/**
 * A real ticket service for other packages' integration tests (the gateway's, end-to-end helpers):
 * the service as main.ts runs it, over a fresh migrated database on a free port, removed again by
 * stop(). It needs a running lookup service (e.g. startTestLookupServer from
 * '@tix/lookup-service/testing').
 *
 *   import { startTestLookupServer } from '@tix/lookup-service/testing';
 *   import { startTestTicketServer } from '@tix/ticket-service/testing';
 *   const lookup = await startTestLookupServer();
 *   const tickets = await startTestTicketServer({ lookupAddress: lookup.address });
 *   const client = createServiceClient('tickets', tickets.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await tickets.stop(); await lookup.stop();
 *
 * Lookup reads are cached as in production (projects and types 30 s, users 10 s); pass `cacheTtls`
 * (0 disables) when a test changes lookup data behind the service's back.
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { DEFAULT_CACHE_TTLS, type LookupCacheTtls } from './config.js';
import { ticketService } from './server.js';

export { TICKETS_MIGRATIONS_DIR } from './server.js';

export interface TestTicketServerOptions {
  /** "host:port" of the lookup service to use. */
  lookupAddress: string;
  /** Database name label (default "tickets"). */
  label?: string;
  logger?: Logger;
  cacheTtls?: Partial<LookupCacheTtls>;
  /** When given, the outbox relay publishes to this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
}

export type TestTicketServer = Awaited<ReturnType<typeof startTestTicketServer>>;

/** Starts a ticket service on 127.0.0.1 (free port) over a fresh, migrated database. */
export function startTestTicketServer(options: TestTicketServerOptions) {
  const { lookupAddress, cacheTtls, ...rest } = options;
  return startTestService(ticketService, {
    ...rest,
    config: { peers: { lookup: lookupAddress }, cacheTtls: { ...DEFAULT_CACHE_TTLS, ...cacheTtls } },
  });
}
