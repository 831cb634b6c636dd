/** The ticket service's configuration, from the environment, validated once at start. */
import { z } from 'zod';
import {
  DEFAULT_AMQP_URL,
  DEFAULT_DATABASE_SERVER_URL,
  DEFAULT_METRICS_PORTS,
  env,
  metricsPortSchema,
  parseEnv,
  serviceDatabaseUrl,
  type LogLevel,
} from '@tix/kit';
import { FLEET, SERVICE_NOT_DEPLOYED } from '@tix/protos';

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** How long values read from the lookup service are reused, in milliseconds (0 = not cached). */
export interface LookupCacheTtls {
  projectMs: number;
  ticketTypeMs: number;
  userMs: number;
}

/**
 * Projects and ticket types change rarely (30 s); users a little shorter (10 s), since a deactivated
 * user should stop being assignable soon.
 */
export const DEFAULT_CACHE_TTLS: LookupCacheTtls = {
  projectMs: 30_000,
  ticketTypeMs: 30_000,
  userMs: 10_000,
};

const TicketsEnvSchema = z.object({
  NODE_ENV: env.nodeEnv,
  LOG_LEVEL: env.logLevel,
  /** The PostgreSQL server; the service uses its own database (tix_tickets) on it. */
  DATABASE_URL: env.url(DEFAULT_DATABASE_SERVER_URL),
  /** Overrides the whole database URL. */
  TICKETS_DATABASE_URL: env.optionalUrl,
  AMQP_URL: env.url(DEFAULT_AMQP_URL),
  GRPC_HOST: env.host('127.0.0.1'),
  GRPC_PORT: env.port(FLEET.tickets.defaultPort),
  /** Where GET /metrics (Prometheus) listens; METRICS_PORT=0 serves no metrics endpoint. */
  METRICS_HOST: env.host('127.0.0.1'),
  METRICS_PORT: metricsPortSchema(DEFAULT_METRICS_PORTS.tickets),
  /** Projects, ticket types and users come from lookup: the service cannot run without it. */
  LOOKUP_SERVICE_ADDR: env
    .serviceAddress('lookup')
    .refine(
      (value) => value !== SERVICE_NOT_DEPLOYED,
      'the ticket service needs the lookup service (projects, ticket types, users)',
    ),
  /** Deadline of each call to the lookup service. */
  SERVICE_DEADLINE_MS: env.positiveInt(5_000),
  DATABASE_POOL_SIZE: env.positiveInt(20),
  /** How long a project (prefix, statuses) read from lookup is reused; 0 disables the cache. */
  PROJECT_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.projectMs),
  /** How long a ticket type (field_schema) read from lookup is reused; 0 disables the cache. */
  TICKET_TYPE_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.ticketTypeMs),
  /** How long a user (exists, is active) read from lookup is reused; 0 disables the cache. */
  USER_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.userMs),
  /** How long in-flight calls may finish after SIGTERM before they are cancelled. */
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
});

export interface TicketsConfig {
  nodeEnv: 'development' | 'test' | 'production';
  logLevel: LogLevel;
  databaseUrl: string;
  amqpUrl: string;
  grpcHost: string;
  grpcPort: number;
  metricsHost: string;
  /** null: no /metrics endpoint (METRICS_PORT=0). */
  metricsPort: number | null;
  lookupAddress: string;
  serviceDeadlineMs: number;
  databasePoolSize: number;
  cacheTtls: LookupCacheTtls;
  shutdownGraceMs: number;
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): TicketsConfig {
  const parsed = parseEnv(TicketsEnvSchema, environment);
  return {
    nodeEnv: parsed.NODE_ENV,
    logLevel: parsed.LOG_LEVEL,
    databaseUrl: serviceDatabaseUrl(parsed.DATABASE_URL, FLEET.tickets.database, parsed.TICKETS_DATABASE_URL),
    amqpUrl: parsed.AMQP_URL,
    grpcHost: parsed.GRPC_HOST,
    grpcPort: parsed.GRPC_PORT,
    metricsHost: parsed.METRICS_HOST,
    metricsPort: parsed.METRICS_PORT,
    lookupAddress: parsed.LOOKUP_SERVICE_ADDR,
    serviceDeadlineMs: parsed.SERVICE_DEADLINE_MS,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    cacheTtls: {
      projectMs: parsed.PROJECT_CACHE_TTL_MS,
      ticketTypeMs: parsed.TICKET_TYPE_CACHE_TTL_MS,
      userMs: parsed.USER_CACHE_TTL_MS,
    },
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
  };
}
