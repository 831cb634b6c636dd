/**
 * The comment service's gRPC registration and a one-call way to run it. `createCommentService` wires
 * store + ticket client -> use cases -> handlers; `startCommentServer` opens the database, connects
 * to the ticket service and serves it on a port (this package's tests, and other packages'
 * integration tests that need a real comment service; main.ts composes the same parts itself).
 *
 *   const comments = await startCommentServer({ databaseUrl, ticketsAddress, port: 0, migrate: true });
 *   const client = createServiceClient('comments', comments.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await comments.stop();
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
} from '@tix/kit';
import { commentHandlers } from './comments/comment-handlers.js';
import { createCommentStore } from './comments/comment-store.js';
import type { TicketsClient } from './comments/ticket-check.js';
import { openDatabase } from './db.js';

/** The comment service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const COMMENTS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface CommentServiceDeps {
  pool: pg.Pool;
  /** Client of the ticket service (is the ticket live in the project?). */
  tickets: TicketsClient;
}

/** The CommentService registration with a handler for every RPC of the contract. */
export function createCommentService(deps: CommentServiceDeps): GrpcServiceRegistration {
  return grpcService(
    'comments',
    commentHandlers({ store: createCommentStore(deps.pool), tickets: deps.tickets }),
  );
}

export interface StartCommentServerOptions {
  /** The comment database (e.g. from createTestDatabase('x', COMMENTS_MIGRATIONS_DIR)). */
  databaseUrl: string;
  /** "host:port" of a running ticket service. */
  ticketsAddress: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Apply COMMENTS_MIGRATIONS_DIR to the database first (default false). */
  migrate?: boolean;
  /** Pool size (default 10). */
  maxConnections?: number;
  /** Deadline of each ticket-service call (default 5000 ms). */
  ticketsDeadlineMs?: number;
  /** When given, also runs the outbox relay publishing to this broker (stopped by stop()). */
  amqpUrl?: string;
}

export interface RunningCommentServer {
  /** The bound port. */
  port: number;
  /** "host:port", ready for createServiceClient('comments', address, ...) or COMMENTS_SERVICE_ADDR. */
  address: string;
  /** grpc.health.v1 status of the server. */
  health: RunningGrpcServer['health'];
  /** The outbox relay, when `amqpUrl` was given. */
  relay: OutboxRelay | null;
  /** Marks health NOT_SERVING, lets in-flight calls finish (up to graceMs, default 5 s), then closes everything. */
  stop(graceMs?: number): Promise<void>;
}

/** Opens the database and the ticket client, and serves the comment service on host:port until stop(). */
export async function startCommentServer(options: StartCommentServerOptions): Promise<RunningCommentServer> {
  const logger = options.logger ?? createLogger({ service: 'comments', level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  if (options.migrate)
    await applyMigrations({
      connectionString: options.databaseUrl,
      migrationsDir: COMMENTS_MIGRATIONS_DIR,
      logger,
    });
  const database = openDatabase(options.databaseUrl, {
    logger,
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  });
  const tickets = createServiceClient('tickets', options.ticketsAddress, {
    deadlineMs: options.ticketsDeadlineMs ?? 5_000,
    logger, // breaker state changes
  });
  try {
    const server = await startGrpcServer({
      host,
      port: options.port ?? 0,
      services: [createCommentService({ pool: database.pool, tickets })],
      logger,
    });
    const relay = options.amqpUrl
      ? startOutboxRelay({ connectionString: options.databaseUrl, amqpUrl: options.amqpUrl, logger })
      : null;
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
          tickets.close();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    tickets.close();
    await database.close();
    throw error;
  }
}
