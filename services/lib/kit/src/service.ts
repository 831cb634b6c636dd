/**
 * The one way to build and run a Tix service. A service declares itself once (defineTixService): its
 * name, its config loader, its migrations, the peers it calls, whether it has an outbox, and a
 * `register` that builds its gRPC service (and any consumers, workers and periodic jobs) on the
 * database pool and peer clients the skeleton opened. main.ts runs the declaration with
 * runTixService; tests start the same composition with startTixService (kit testing:
 * startTestService), so both run the same wiring.
 *
 * Start: pool -> peer clients -> register -> gRPC server with health -> outbox relay -> consumers.
 * Stop, within one grace period: health NOT_SERVING and no new calls or messages (in-flight ones
 * finish) -> workers and jobs, in their declared order -> outbox relay -> peer clients -> pool.
 */
import type pg from 'pg';
import type { ServiceName } from '@tix/protos';
import { openDatabase } from './db/pool.js';
import { startOutboxRelay, type OutboxRelay } from './events/outbox.js';
import { createServiceClient, type ServiceClient } from './grpc/client.js';
import { startGrpcServer, type GrpcServiceRegistration, type RunningGrpcServer } from './grpc/server.js';
import { createLogger, type Logger } from './logger.js';
import { loadConfigOrExit, startTixProcess } from './process.js';
import type { CommonServiceConfig, PeerConfig } from './service-config.js';

/** Background work that stops within a grace period: event consumers, delivery workers, periodic jobs. */
export interface BackgroundWorker {
  stop(graceMs: number): Promise<void>;
}

/** What a service's `register` builds. */
export interface ServiceParts {
  /** The gRPC service it serves (grpcService(name, handlers)). */
  grpc: GrpcServiceRegistration;
  /** Background work already running (workers, periodic jobs); stopped in this order once calls have drained. */
  workers?: Record<string, BackgroundWorker>;
  /**
   * Event consumers, each started once the server is up and only when the instance uses the broker;
   * they stop taking messages together with the server.
   */
  consumers?: Record<string, () => BackgroundWorker>;
}

export interface ServiceContext<Config, Peer extends ServiceName> {
  config: Config;
  logger: Logger;
  /** The service's own database: DATABASE_POOL_SIZE connections, DATABASE_STATEMENT_TIMEOUT_MS. */
  pool: pg.Pool;
  /** A client per peer, with the SERVICE_DEADLINE_MS deadline and its breaker's changes logged. */
  peers: { [P in Peer]: ServiceClient<P> };
}

export interface TixServiceDefinition<
  Config extends CommonServiceConfig,
  Peer extends ServiceName,
  Parts extends ServiceParts,
> {
  name: ServiceName;
  /** Reads the configuration from an environment (serviceConfig). */
  config: (environment?: NodeJS.ProcessEnv) => Config & PeerConfig<Peer>;
  /** The Prisma migrations folder; the launcher and deploy jobs apply it, tests migrate fresh databases with it. */
  migrations: string;
  /** The services it calls. */
  peers: readonly Peer[];
  /** True when it writes domain events to its outbox_events table: the relay publishes them. */
  outbox: boolean;
  /** Builds the service's parts on its database and peers. */
  register(context: ServiceContext<Config, Peer>): Parts | Promise<Parts>;
}

/** Declares a service (types only: the declaration is checked and its types inferred). */
export function defineTixService<
  Config extends CommonServiceConfig,
  Peer extends ServiceName,
  Parts extends ServiceParts,
>(definition: TixServiceDefinition<Config, Peer, Parts>): TixServiceDefinition<Config, Peer, Parts> {
  return definition;
}

type StartedConsumers<Parts extends ServiceParts> = {
  [K in keyof NonNullable<Parts['consumers']>]?: NonNullable<Parts['consumers']>[K] extends () => infer W
    ? W
    : never;
};

export interface RunningTixService<Parts extends ServiceParts> {
  /** The bound port. */
  port: number;
  /** "host:port", ready for createServiceClient or <NAME>_SERVICE_ADDR. */
  address: string;
  /** grpc.health.v1 status of the server. */
  health: RunningGrpcServer['health'];
  pool: pg.Pool;
  /** The outbox relay; null without an outbox or without the broker. */
  relay: OutboxRelay | null;
  /** What `register` built. */
  parts: Parts;
  /** The consumers started (none without the broker). */
  consumers: StartedConsumers<Parts>;
  /** The ordered stop of the file header; in-flight work gets `graceMs` (default SHUTDOWN_GRACE_MS). */
  stop(graceMs?: number): Promise<void>;
}

export interface StartTixServiceOptions {
  /** Default: a silent logger. */
  logger?: Logger;
  /**
   * False: no outbox relay and no consumers, so the instance never talks to RabbitMQ (tests that do
   * not look at events). Default true.
   */
  broker?: boolean;
}

/** Opens the service's database and peers, and serves it on config.grpcHost:grpcPort until stop(). */
export async function startTixService<
  Config extends CommonServiceConfig,
  Peer extends ServiceName,
  Parts extends ServiceParts,
>(
  definition: TixServiceDefinition<Config, Peer, Parts>,
  config: Config & PeerConfig<Peer>,
  options: StartTixServiceOptions = {},
): Promise<RunningTixService<Parts>> {
  const logger = options.logger ?? createLogger({ service: definition.name, level: 'silent' });
  const database = openDatabase(config.databaseUrl, {
    logger,
    maxConnections: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  // PeerConfig<Peer> with Peer resolved: a service without peers has none, and then reads none.
  const peerSettings = config as unknown as { peers: Record<Peer, string>; serviceDeadlineMs: number };
  const peers = Object.fromEntries(
    definition.peers.map((peer) => [
      peer,
      createServiceClient(peer, peerSettings.peers[peer], {
        deadlineMs: peerSettings.serviceDeadlineMs,
        logger, // breaker state changes
      }),
    ]),
  ) as ServiceContext<Config, Peer>['peers'];
  const closeConnections = async () => {
    for (const peer of Object.values<ServiceClient<ServiceName>>(peers)) peer.close();
    await database.close();
  };
  const workers = (parts: Parts) => Object.values(parts.workers ?? {});

  let parts: Parts;
  let server: RunningGrpcServer;
  try {
    parts = await definition.register({ config, logger, pool: database.pool, peers });
  } catch (error) {
    await closeConnections();
    throw error;
  }
  try {
    server = await startGrpcServer({
      host: config.grpcHost,
      port: config.grpcPort,
      services: [parts.grpc],
      logger,
    });
  } catch (error) {
    for (const worker of workers(parts)) await worker.stop(0);
    await closeConnections();
    throw error;
  }

  const broker = options.broker ?? true;
  const relay =
    broker && definition.outbox
      ? startOutboxRelay({ connectionString: config.databaseUrl, amqpUrl: config.amqpUrl, logger })
      : null;
  const consumers = broker
    ? (Object.fromEntries(
        Object.entries(parts.consumers ?? {}).map(([name, start]) => [name, start()]),
      ) as StartedConsumers<Parts>)
    : {};

  let stopping: Promise<void> | undefined;
  return {
    port: server.port,
    address: `${config.grpcHost}:${server.port}`,
    health: server.health,
    pool: database.pool,
    relay,
    parts,
    consumers,
    stop(graceMs = config.shutdownGraceMs) {
      stopping ??= (async () => {
        const deadline = Date.now() + graceMs;
        const left = () => Math.max(0, deadline - Date.now());
        await Promise.all([
          server.shutdown(left()),
          ...Object.values<BackgroundWorker>(consumers).map((consumer) => consumer.stop(left())),
        ]);
        for (const worker of workers(parts)) await worker.stop(left());
        await relay?.stop();
        await closeConnections();
      })();
      return stopping;
    },
  };
}

/**
 * A service process (its main.ts): config (EX_CONFIG when bad), logger and /metrics, the service,
 * and the ordered stop on SIGTERM/SIGINT within SHUTDOWN_GRACE_MS. A service that cannot start
 * (port taken, object store unreachable) logs why and exits 1. Migrations are applied by the
 * launcher or a deploy job, never by every replica at start.
 */
export async function runTixService<
  Config extends CommonServiceConfig,
  Peer extends ServiceName,
  Parts extends ServiceParts,
>(definition: TixServiceDefinition<Config, Peer, Parts>): Promise<void> {
  const config = loadConfigOrExit(definition.name, () => definition.config());
  const { logger, stopOnSignals } = await startTixProcess(definition.name, config);
  const service = await startTixService(definition, config, { logger }).catch((error: unknown) => {
    logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the service');
    process.exit(1);
  });
  stopOnSignals(() => service.stop(config.shutdownGraceMs));
}
