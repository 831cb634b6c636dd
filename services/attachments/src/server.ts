/**
 * The attachment service's gRPC registration and a one-call way to run it. `createAttachmentService`
 * wires stores -> use cases -> handlers; `startAttachmentServer` opens the database, the ticket
 * client and the object store (creating the bucket), and serves on a port with the sweeper and
 * optionally the outbox relay (this package's tests and other packages' tests; main.ts composes the
 * same parts itself).
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
import {
  DEFAULT_SPOOL_DIR,
  DEFAULT_UPLOAD_IDLE_TIMEOUT_MS,
  type ObjectStoreConfig,
  type UploadPolicy,
} from './config.js';
import { openDatabase } from './db.js';
import { attachmentHandlers } from './attachments/attachment-handlers.js';
import { createAttachmentStore } from './attachments/attachment-store.js';
import { createTicketAccess } from './attachments/ticket-access.js';
import { createObjectStore, type ObjectStore } from './storage/object-store.js';
import { startObjectSweeper, type ObjectSweeper } from './sweeper/object-sweeper.js';
import { ALLOWED_TYPES_DEFAULT, DEFAULT_MAX_BYTES } from './uploads/file-type-rules.js';
import { removeStaleSpoolFiles } from './uploads/spool.js';

/** The attachment service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const ATTACHMENTS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** The upload policy when nothing is configured (25 MB, the default allow-list and spool folder, 30 s idle). */
export const DEFAULT_UPLOAD_POLICY: UploadPolicy = {
  maxBytes: DEFAULT_MAX_BYTES,
  allowedTypes: new Set(ALLOWED_TYPES_DEFAULT),
  spoolDir: DEFAULT_SPOOL_DIR,
  idleTimeoutMs: DEFAULT_UPLOAD_IDLE_TIMEOUT_MS,
};

/** Spool files older than this at start belong to a process that died while receiving them. */
const STALE_SPOOL_MS = 3_600_000;

export interface AttachmentServiceDeps {
  pool: pg.Pool;
  objects: ObjectStore;
  tickets: Pick<ServiceClient<'tickets'>, 'GetTicket'>;
  uploads: UploadPolicy;
}

/** The AttachmentService registration with a handler for every RPC of the contract. */
export function createAttachmentService(deps: AttachmentServiceDeps): GrpcServiceRegistration {
  return grpcService(
    'attachments',
    attachmentHandlers({
      attachments: createAttachmentStore(deps.pool),
      objects: deps.objects,
      tickets: createTicketAccess(deps.tickets),
      uploads: deps.uploads,
    }),
  );
}

/**
 * Creates the bucket, retrying while the store is not reachable yet (the launcher starts the store
 * and the services together), for at most `timeoutMs`.
 */
export async function ensureBucketWithin(
  objects: ObjectStore,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delayMs = 100;
  for (;;) {
    try {
      await objects.ensureBucket();
      return;
    } catch (error) {
      if (Date.now() + delayMs > deadline) throw error;
      logger.info({ bucket: objects.bucket, retry_in_ms: delayMs }, 'object store not reachable yet');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 2_000);
    }
  }
}

export interface StartAttachmentServerOptions {
  /** The attachment database (e.g. from createTestDatabase('x', ATTACHMENTS_MIGRATIONS_DIR)). */
  databaseUrl: string;
  /** "host:port" of a running ticket service. */
  ticketsAddress: string;
  store: ObjectStoreConfig;
  /** Default DEFAULT_UPLOAD_POLICY, field by field. */
  uploads?: Partial<UploadPolicy>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Apply ATTACHMENTS_MIGRATIONS_DIR to the database first (default false). */
  migrate?: boolean;
  maxConnections?: number;
  /** Deadline of each ticket-service call (default 5000 ms). */
  ticketsDeadlineMs?: number;
  /** How long to wait for the store at start (default 10 s). */
  storeStartupTimeoutMs?: number;
  /** Sweeper interval (default 60 s). */
  sweepIntervalMs?: number;
  /** When given, also runs the outbox relay publishing to this broker (stopped by stop()). */
  amqpUrl?: string;
}

export interface RunningAttachmentServer {
  port: number;
  /** "host:port", ready for createServiceClient('attachments', address, ...) or ATTACHMENTS_SERVICE_ADDR. */
  address: string;
  health: RunningGrpcServer['health'];
  objects: ObjectStore;
  sweeper: ObjectSweeper;
  relay: OutboxRelay | null;
  /** Marks health NOT_SERVING, lets in-flight calls finish (up to graceMs, default 5 s), then closes everything. */
  stop(graceMs?: number): Promise<void>;
}

/** Opens the database, the ticket client and the store, and serves the attachment service until stop(). */
export async function startAttachmentServer(
  options: StartAttachmentServerOptions,
): Promise<RunningAttachmentServer> {
  const logger = options.logger ?? createLogger({ service: 'attachments', level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  const uploads: UploadPolicy = { ...DEFAULT_UPLOAD_POLICY, ...options.uploads };
  if (options.migrate) {
    await applyMigrations({
      connectionString: options.databaseUrl,
      migrationsDir: ATTACHMENTS_MIGRATIONS_DIR,
      logger,
    });
  }
  const objects = createObjectStore(options.store);
  await ensureBucketWithin(objects, options.storeStartupTimeoutMs ?? 10_000, logger);
  const staleSpoolFiles = await removeStaleSpoolFiles(uploads.spoolDir, STALE_SPOOL_MS);
  if (staleSpoolFiles > 0)
    logger.info({ removed: staleSpoolFiles }, 'removed spool files of interrupted uploads');
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
      services: [createAttachmentService({ pool: database.pool, objects, tickets, uploads })],
      logger,
    });
    const sweeper = startObjectSweeper({
      attachments: createAttachmentStore(database.pool),
      objects,
      logger,
      intervalMs: options.sweepIntervalMs ?? 60_000,
    });
    const relay = options.amqpUrl
      ? startOutboxRelay({ connectionString: options.databaseUrl, amqpUrl: options.amqpUrl, logger })
      : null;
    let stopping: Promise<void> | undefined;
    return {
      port: server.port,
      address: `${host}:${server.port}`,
      health: server.health,
      objects,
      sweeper,
      relay,
      stop(graceMs = 5_000) {
        stopping ??= (async () => {
          await server.shutdown(graceMs);
          await sweeper.stop();
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
