/**
 * A real ticket service for other packages' integration tests (the gateway's, end-to-end helpers):
 * a fresh migrated database plus the gRPC server on a free port, removed again by stop(). It needs
 * a running lookup service (e.g. startTestLookupServer from '@tix/lookup-service/testing').
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
import { createTestDatabase, testLogger } from '@tix/kit/testing';
import type { LookupCacheTtls } from './config.js';
import { startTicketServer, TICKETS_MIGRATIONS_DIR, type RunningTicketServer } from './server.js';

export { startTicketServer, TICKETS_MIGRATIONS_DIR } from './server.js';
export type { RunningTicketServer, StartTicketServerOptions } from './server.js';

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

export interface TestTicketServer extends RunningTicketServer {
  /** The fresh database it serves (query it directly to arrange or inspect state, e.g. outbox_events). */
  databaseUrl: string;
  /** Stops the server and drops its database. */
  stop(): Promise<void>;
}

/** Starts a ticket service on 127.0.0.1 (free port) over a fresh, migrated database. */
export async function startTestTicketServer(options: TestTicketServerOptions): Promise<TestTicketServer> {
  const database = await createTestDatabase(options.label ?? 'tickets', TICKETS_MIGRATIONS_DIR);
  try {
    const server = await startTicketServer({
      databaseUrl: database.url,
      lookupAddress: options.lookupAddress,
      port: 0,
      logger: options.logger ?? testLogger('tickets'),
      ...(options.cacheTtls ? { cacheTtls: options.cacheTtls } : {}),
      ...(options.amqpUrl ? { amqpUrl: options.amqpUrl } : {}),
    });
    return {
      ...server,
      databaseUrl: database.url,
      stop: () => server.stop(1_000).finally(() => database.drop()),
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
