/**
 * The lookup service's gRPC registration and a one-call way to run it. `createLookupService` wires
 * stores -> use cases -> handlers; `startLookupServer` opens the database and serves it on a port
 * (main.ts, this package's tests, and other packages' integration tests that need a real lookup).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyMigrations,
  createLogger,
  grpcService,
  startGrpcServer,
  startOutboxRelay,
  type GrpcServiceRegistration,
  type Logger,
  type RunningGrpcServer,
} from '@tix/kit';
import { createApiKeyAuthenticator } from './api-keys/api-key-authentication.js';
import { apiKeyHandlers } from './api-keys/api-key-handlers.js';
import { createApiKeyService } from './api-keys/api-key-service.js';
import { createApiKeyStore } from './api-keys/api-key-store.js';
import { openDatabase, type PrismaClient } from './db.js';
import { demoHandlers } from './demo/demo-handlers.js';
import { createDemoSeeder } from './demo/seed-demo.js';
import { projectHandlers } from './projects/project-handlers.js';
import { createProjectService } from './projects/project-service.js';
import { createProjectStore } from './projects/project-store.js';
import { ticketTypeHandlers } from './ticket-types/ticket-type-handlers.js';
import { createTicketTypeService } from './ticket-types/ticket-type-service.js';
import { createTicketTypeStore } from './ticket-types/ticket-type-store.js';
import { userHandlers } from './users/user-handlers.js';
import { createUserService } from './users/user-service.js';
import { createUserStore } from './users/user-store.js';

/** The lookup service's Prisma migrations (for createTestDatabase and the launcher). */
export const LOOKUP_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface LookupServiceDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** The clock (tests move it to check last-use bookkeeping). */
  now?: () => Date;
}

/** The LookupService registration with a handler for every RPC of the contract. */
export function createLookupService(deps: LookupServiceDeps): GrpcServiceRegistration {
  const now = deps.now ?? (() => new Date());
  const projects = createProjectService(createProjectStore(deps.prisma));
  const ticketTypes = createTicketTypeService(createTicketTypeStore(deps.prisma), projects);
  const users = createUserService(createUserStore(deps.prisma));
  const apiKeyStore = createApiKeyStore(deps.prisma);
  const apiKeys = createApiKeyService({ store: apiKeyStore, users, projects, now });
  const authenticator = createApiKeyAuthenticator({ store: apiKeyStore, logger: deps.logger, now });
  const seeder = createDemoSeeder({ projects, ticketTypes, users, apiKeys });
  return grpcService('lookup', {
    ...projectHandlers(projects),
    ...ticketTypeHandlers(ticketTypes),
    ...userHandlers(users),
    ...apiKeyHandlers(apiKeys, authenticator),
    ...demoHandlers(seeder),
  });
}

export interface StartLookupServerOptions {
  /** The lookup database (e.g. from createTestDatabase('x', LOOKUP_MIGRATIONS_DIR)). */
  databaseUrl: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Apply LOOKUP_MIGRATIONS_DIR to the database first (default false). */
  migrate?: boolean;
  /** Pool size (default 10). */
  maxConnections?: number;
  now?: () => Date;
  /** When given, also runs the outbox relay publishing to this broker (stopped by stop()). */
  amqpUrl?: string;
}

export interface RunningLookupServer {
  /** The bound port. */
  port: number;
  /** "host:port", ready for createServiceClient('lookup', address, ...) or LOOKUP_SERVICE_ADDR. */
  address: string;
  /** grpc.health.v1 status of the server (e.g. setStatus('', 'NOT_SERVING') in tests). */
  health: RunningGrpcServer['health'];
  /** Marks health NOT_SERVING, lets in-flight calls finish (up to graceMs, default 5 s), then closes the database. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Opens the database and serves the lookup service on host:port (with the outbox relay when
 * `amqpUrl` is given) until stop().
 */
export async function startLookupServer(options: StartLookupServerOptions): Promise<RunningLookupServer> {
  const logger = options.logger ?? createLogger({ service: 'lookup', level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  if (options.migrate)
    await applyMigrations({
      connectionString: options.databaseUrl,
      migrationsDir: LOOKUP_MIGRATIONS_DIR,
      logger,
    });
  const database = openDatabase(options.databaseUrl, {
    logger,
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  });
  try {
    const server = await startGrpcServer({
      host,
      port: options.port ?? 0,
      services: [
        createLookupService({
          prisma: database.prisma,
          logger,
          ...(options.now ? { now: options.now } : {}),
        }),
      ],
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
      stop(graceMs = 5_000) {
        stopping ??= (async () => {
          await server.shutdown(graceMs);
          await relay?.stop();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
