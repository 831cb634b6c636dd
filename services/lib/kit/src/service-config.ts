/**
 * A service's configuration: the variables every service reads (named here, once), the addresses of
 * the peers it cannot run without, and the service's own variables. The config's type is inferred
 * from these schemas; a bad value throws a ConfigError naming every variable at fault (main.ts turns
 * it into EX_CONFIG through loadConfigOrExit).
 */
import { z } from 'zod';
import {
  FLEET,
  SERVICE_NOT_DEPLOYED,
  serviceAddressVariable,
  serviceDatabaseVariable,
  type ServiceName,
} from '@tix/protos';
import {
  DEFAULT_AMQP_URL,
  DEFAULT_DATABASE_SERVER_URL,
  env,
  parseEnv,
  serviceDatabaseUrl,
} from './config.js';
import { metricsPortSchema } from './metrics.js';

/** The variables of every service; GRPC_PORT and METRICS_PORT default to the service's own ports. */
function commonVariables(name: ServiceName, databasePoolSize: number, statementTimeoutMs: number) {
  return {
    NODE_ENV: env.nodeEnv,
    LOG_LEVEL: env.logLevel,
    /** The PostgreSQL server; the service uses its own database (FLEET[name].database) on it. */
    DATABASE_URL: env.url(DEFAULT_DATABASE_SERVER_URL),
    AMQP_URL: env.url(DEFAULT_AMQP_URL),
    GRPC_HOST: env.host('127.0.0.1'),
    GRPC_PORT: env.port(FLEET[name].grpcPort),
    /** Where GET /metrics (Prometheus) listens; METRICS_PORT=0 serves no metrics endpoint. */
    METRICS_HOST: env.host('127.0.0.1'),
    METRICS_PORT: metricsPortSchema(FLEET[name].metricsPort),
    DATABASE_POOL_SIZE: env.positiveInt(databasePoolSize),
    /** How long one SQL statement may run before PostgreSQL cancels it; 0 = no limit. */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(statementTimeoutMs),
    /** How long in-flight work may finish after SIGTERM before it is cancelled. */
    SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  };
}

type CommonValues = z.output<z.ZodObject<ReturnType<typeof commonVariables>>>;

function commonConfig(name: ServiceName, values: CommonValues, databaseUrlOverride: string | undefined) {
  return {
    nodeEnv: values.NODE_ENV,
    logLevel: values.LOG_LEVEL,
    databaseUrl: serviceDatabaseUrl(values.DATABASE_URL, FLEET[name].database, databaseUrlOverride),
    amqpUrl: values.AMQP_URL,
    grpcHost: values.GRPC_HOST,
    grpcPort: values.GRPC_PORT,
    metricsHost: values.METRICS_HOST,
    /** null: no /metrics endpoint (METRICS_PORT=0). */
    metricsPort: values.METRICS_PORT,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    /** 0: statements run as long as they take. */
    databaseStatementTimeoutMs: values.DATABASE_STATEMENT_TIMEOUT_MS,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
  };
}

/** What every service's config holds. */
export type CommonServiceConfig = ReturnType<typeof commonConfig>;

/** The address of every peer (<PEER>_SERVICE_ADDR) by name, and the deadline of their calls. */
export type PeerConfig<Peer extends ServiceName> = [Peer] extends [never]
  ? unknown
  : { peers: { [P in Peer]: string }; serviceDeadlineMs: number };

export type ServiceConfig<Peer extends ServiceName, Own> = CommonServiceConfig & PeerConfig<Peer> & Own;

export interface ServiceConfigSpec<Peer extends ServiceName, Shape extends z.ZodRawShape, Own> {
  /** DATABASE_POOL_SIZE when unset (default 10). */
  databasePoolSize?: number;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS when unset (default 0, no limit). A service whose requests can
   * ask for expensive reads sets it below its callers' deadline (the gateway's SERVICE_DEADLINE_MS,
   * 5 s): the statement is then cancelled and the service answers `timeout` itself, before the
   * caller gives up on it. That answer does not open the caller's circuit breaker (breaker.ts), so
   * one expensive kind of request cannot make every call to the service fail fast, and the database
   * stops working for a client that has left.
   */
  statementTimeoutMs?: number;
  /**
   * The services this one cannot run without, each with the message refusing `none` as its address
   * (<PEER>_SERVICE_ADDR). Their calls share SERVICE_DEADLINE_MS.
   */
  peers?: Record<Peer, string>;
  /** The service's own variables. */
  variables?: Shape;
  /** Rules across variables (e.g. a variable required in production). */
  check?: (values: z.output<z.ZodObject<Shape>> & { NODE_ENV: string }, context: z.RefinementCtx) => void;
  /** The service's own config fields, from its variables. */
  read?: (values: z.output<z.ZodObject<Shape>>, common: CommonServiceConfig) => Own;
}

/**
 * The configuration loader of service `name`: reads `environment` (default process.env) once and
 * returns the typed config, or throws a ConfigError naming every bad variable.
 */
export function serviceConfig<
  Peer extends ServiceName = never,
  Shape extends z.ZodRawShape = Record<never, z.ZodType>,
  Own = unknown,
>(
  name: ServiceName,
  spec: ServiceConfigSpec<Peer, Shape, Own>,
): (environment?: NodeJS.ProcessEnv) => ServiceConfig<Peer, Own> {
  const databaseVariable = serviceDatabaseVariable(name);
  const peers = Object.entries(spec.peers ?? {}) as [Peer, string][];
  const peerVariables: Record<string, z.ZodType> = Object.fromEntries(
    peers.map(([peer, refusal]) => [
      serviceAddressVariable(peer),
      env.serviceAddress(peer).refine((value) => value !== SERVICE_NOT_DEPLOYED, refusal),
    ]),
  );
  if (peers.length > 0) peerVariables.SERVICE_DEADLINE_MS = env.positiveInt(5_000);
  const schema = z
    .object({
      ...commonVariables(name, spec.databasePoolSize ?? 10, spec.statementTimeoutMs ?? 0),
      /** <NAME>_DATABASE_URL overrides the whole database URL. */
      [databaseVariable]: env.optionalUrl,
      ...peerVariables,
      ...spec.variables,
    })
    .superRefine((values, context) => spec.check?.(values as never, context))
    .transform((parsed) => {
      const values: Record<string, unknown> = parsed;
      const common = commonConfig(name, parsed, values[databaseVariable] as string | undefined);
      const peerConfig =
        peers.length === 0
          ? {}
          : {
              peers: Object.fromEntries(peers.map(([peer]) => [peer, values[serviceAddressVariable(peer)]])),
              serviceDeadlineMs: values.SERVICE_DEADLINE_MS,
            };
      const own = spec.read?.(parsed as never, common) ?? {};
      return { ...common, ...peerConfig, ...own } as ServiceConfig<Peer, Own>;
    });
  return (environment = process.env) => parseEnv(schema, environment);
}
