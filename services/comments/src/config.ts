/** The comment service's configuration, from the environment, validated once at start. */
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

const CommentsEnvSchema = z.object({
  NODE_ENV: env.nodeEnv,
  LOG_LEVEL: env.logLevel,
  /** The PostgreSQL server; the service uses its own database (tix_comments) on it. */
  DATABASE_URL: env.url(DEFAULT_DATABASE_SERVER_URL),
  /** Overrides the whole database URL. */
  COMMENTS_DATABASE_URL: env.optionalUrl,
  AMQP_URL: env.url(DEFAULT_AMQP_URL),
  GRPC_HOST: env.host('127.0.0.1'),
  GRPC_PORT: env.port(FLEET.comments.defaultPort),
  /** Where GET /metrics (Prometheus) listens; METRICS_PORT=0 serves no metrics endpoint. */
  METRICS_HOST: env.host('127.0.0.1'),
  METRICS_PORT: metricsPortSchema(DEFAULT_METRICS_PORTS.comments),
  /** Every comment belongs to a ticket: the service cannot answer anything without the ticket service. */
  TICKETS_SERVICE_ADDR: env
    .serviceAddress('tickets')
    .refine(
      (value) => value !== SERVICE_NOT_DEPLOYED,
      'the comment service needs the ticket service (every comment hangs off a live ticket)',
    ),
  /** Deadline of each call to the ticket service. */
  SERVICE_DEADLINE_MS: env.positiveInt(5_000),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  /** How long in-flight calls may finish after SIGTERM before they are cancelled. */
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
});

export interface CommentsConfig {
  nodeEnv: 'development' | 'test' | 'production';
  logLevel: LogLevel;
  databaseUrl: string;
  amqpUrl: string;
  grpcHost: string;
  grpcPort: number;
  metricsHost: string;
  /** null: no /metrics endpoint (METRICS_PORT=0). */
  metricsPort: number | null;
  ticketsAddress: string;
  serviceDeadlineMs: number;
  databasePoolSize: number;
  shutdownGraceMs: number;
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): CommentsConfig {
  const parsed = parseEnv(CommentsEnvSchema, environment);
  return {
    nodeEnv: parsed.NODE_ENV,
    logLevel: parsed.LOG_LEVEL,
    databaseUrl: serviceDatabaseUrl(
      parsed.DATABASE_URL,
      FLEET.comments.database,
      parsed.COMMENTS_DATABASE_URL,
    ),
    amqpUrl: parsed.AMQP_URL,
    grpcHost: parsed.GRPC_HOST,
    grpcPort: parsed.GRPC_PORT,
    metricsHost: parsed.METRICS_HOST,
    metricsPort: parsed.METRICS_PORT,
    ticketsAddress: parsed.TICKETS_SERVICE_ADDR,
    serviceDeadlineMs: parsed.SERVICE_DEADLINE_MS,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
  };
}
