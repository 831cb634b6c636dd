/**
 * The ticket service's gRPC registration and a one-call way to run it. `createTicketService` wires
 * stores -> use cases -> handlers; `startTicketServer` opens the database, connects to lookup and
 * serves it on a port (this package's tests, and other packages' integration tests that need a real
 * ticket service; main.ts composes the same parts itself).
 *
 *   const tickets = await startTicketServer({ databaseUrl, lookupAddress, port: 0, migrate: true });
 *   const client = createServiceClient('tickets', tickets.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await tickets.stop();
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import {
  applyMigrations,
  createLogger,
  createServiceClient,
  grpcService,
  startGrpcServer,
  startOutboxRelay,
  type GrpcServiceRegistration,
  type Logger,
  type OutboxRelay,
  type RunningGrpcServer,
  type ServiceClient,
} from '@tix/kit';
import { DEFAULT_CACHE_TTLS, type LookupCacheTtls } from './config.js';
import { openDatabase } from './db.js';
import { createLookupDirectory } from './lookup/lookup-directory.js';
import { startIdempotencySweep } from './tickets/idempotency-sweep.js';
import { ticketHandlers } from './tickets/ticket-handlers.js';
import { createTicketReadStore } from './tickets/ticket-read-store.js';
import { createTicketWriteStore } from './tickets/ticket-write-store.js';

/** The ticket service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const TICKETS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface TicketServiceDeps {
  pool: pg.Pool;
  /** Client of the lookup service (projects, ticket types, users). */
  lookup: Pick<ServiceClient<'lookup'>, 'ResolveProject' | 'GetTicketType' | 'GetUsers'>;
  /** Cache lifetimes of what is read from lookup (default DEFAULT_CACHE_TTLS). */
  cacheTtls?: LookupCacheTtls;
}

/** The TicketService registration with a handler for every RPC of the contract. */
export function createTicketService(deps: TicketServiceDeps): GrpcServiceRegistration {
  return grpcService(
    'tickets',
    ticketHandlers({
      reads: createTicketReadStore(deps.pool),
      writes: createTicketWriteStore(deps.pool),
      lookup: createLookupDirectory({ client: deps.lookup, ttls: deps.cacheTtls ?? DEFAULT_CACHE_TTLS }),
    }),
  );
}

export interface StartTicketServerOptions {
  /** The ticket database (e.g. from createTestDatabase('x', TICKETS_MIGRATIONS_DIR)). */
  databaseUrl: string;
  /** "host:port" of a running lookup service. */
  lookupAddress: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Apply TICKETS_MIGRATIONS_DIR to the database first (default false). */
  migrate?: boolean;
  /** Pool size (default 20). */
  maxConnections?: number;
  /** Deadline of each lookup call (default 5000 ms). */
  lookupDeadlineMs?: number;
  /** Cache lifetimes of lookup reads (default DEFAULT_CACHE_TTLS; 0 disables one). */
  cacheTtls?: Partial<LookupCacheTtls>;
  /** When given, also runs the outbox relay publishing to this broker (stopped by stop()). */
  amqpUrl?: string;
}

export interface RunningTicketServer {
  /** The bound port. */
  port: number;
  /** "host:port", ready for createServiceClient('tickets', address, ...) or TICKETS_SERVICE_ADDR. */
  address: string;
  /** grpc.health.v1 status of the server. */
  health: RunningGrpcServer['health'];
  /** The outbox relay, when `amqpUrl` was given. */
  relay: OutboxRelay | null;
  /** Marks health NOT_SERVING, lets in-flight calls finish (up to graceMs, default 5 s), then closes everything. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Opens the database and the lookup client, and serves the ticket service on host:port until stop(),
 * with the idempotency sweep (and the outbox relay when `amqpUrl` is given).
 */
export async function startTicketServer(options: StartTicketServerOptions): Promise<RunningTicketServer> {
  const logger = options.logger ?? createLogger({ service: 'tickets', level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  if (options.migrate)
    await applyMigrations({
      connectionString: options.databaseUrl,
      migrationsDir: TICKETS_MIGRATIONS_DIR,
      logger,
    });
  const database = openDatabase(options.databaseUrl, {
    logger,
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  });
  const lookup = createServiceClient('lookup', options.lookupAddress, {
    deadlineMs: options.lookupDeadlineMs ?? 5_000,
    logger, // breaker state changes
  });
  try {
    const server = await startGrpcServer({
      host,
      port: options.port ?? 0,
      services: [
        createTicketService({
          pool: database.pool,
          lookup,
          cacheTtls: { ...DEFAULT_CACHE_TTLS, ...options.cacheTtls },
        }),
      ],
      logger,
    });
    const relay = options.amqpUrl
      ? startOutboxRelay({ connectionString: options.databaseUrl, amqpUrl: options.amqpUrl, logger })
      : null;
    const idempotencySweep = startIdempotencySweep({ pool: database.pool, logger });
    let stopping: Promise<void> | undefined;
    return {
      port: server.port,
      address: `${host}:${server.port}`,
      health: server.health,
      relay,
      stop(graceMs = 5_000) {
        stopping ??= (async () => {
          await server.shutdown(graceMs);
          await relay?.stop();
          await idempotencySweep.stop();
          lookup.close();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    lookup.close();
    await database.close();
    throw error;
  }
}
