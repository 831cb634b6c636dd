/** The webhook service's configuration, from the environment, validated once at start. */
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
import { FLEET } from '@tix/protos';
import { parseSecretKey } from './subscriptions/secret-box.js';
import type { TargetMode } from './delivery/target-policy.js';

/** The spec's per-attempt timeout. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

const WebhooksEnvSchema = z
  .object({
    NODE_ENV: env.nodeEnv,
    LOG_LEVEL: env.logLevel,
    /** The PostgreSQL server; the service uses its own database (tix_webhooks) on it. */
    DATABASE_URL: env.url(DEFAULT_DATABASE_SERVER_URL),
    /** Overrides the whole database URL. */
    WEBHOOKS_DATABASE_URL: env.optionalUrl,
    AMQP_URL: env.url(DEFAULT_AMQP_URL),
    GRPC_HOST: env.host('127.0.0.1'),
    GRPC_PORT: env.port(FLEET.webhooks.defaultPort),
    /** Where GET /metrics (Prometheus) listens; METRICS_PORT=0 serves no metrics endpoint. */
    METRICS_HOST: env.host('127.0.0.1'),
    METRICS_PORT: metricsPortSchema(DEFAULT_METRICS_PORTS.webhooks),
    /**
     * 32 bytes (base64 or 64 hex digits) that seal signing secrets at rest with AES-256-GCM.
     * Required in production; without it (development, tests) secrets are stored as given.
     */
    WEBHOOK_SECRET_KEY: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .refine(
        (value) => value === undefined || parseSecretKey(value) !== null,
        'expected 32 bytes as base64 (44 characters) or hex (64 digits)',
      ),
    /** Per delivery attempt (the spec: 10 s). */
    WEBHOOK_TIMEOUT_MS: env.positiveInt(DEFAULT_ATTEMPT_TIMEOUT_MS),
    /** Attempts in flight at once, over every target. */
    WEBHOOK_CONCURRENCY: env.positiveInt(128),
    /** Attempts in flight at once to one target host (host:port). */
    WEBHOOK_HOST_CONCURRENCY: env.positiveInt(16),
    /** Unacknowledged broker messages the consumer holds at once. */
    WEBHOOK_CONSUMER_PREFETCH: env.positiveInt(64),
    /** Deliveries (and the event ids that deduplicate the queue) are kept this long. */
    DELIVERY_RETENTION_DAYS: env.positiveInt(30),
    DATABASE_POOL_SIZE: env.positiveInt(20),
    /** How long in-flight calls and attempts may finish after SIGTERM. */
    SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  })
  .refine((value) => value.NODE_ENV !== 'production' || value.WEBHOOK_SECRET_KEY !== undefined, {
    path: ['WEBHOOK_SECRET_KEY'],
    message: 'required in production (signing secrets are encrypted at rest with it)',
  });

export interface WebhooksConfig {
  nodeEnv: 'development' | 'test' | 'production';
  logLevel: LogLevel;
  databaseUrl: string;
  amqpUrl: string;
  grpcHost: string;
  grpcPort: number;
  metricsHost: string;
  /** null: no /metrics endpoint (METRICS_PORT=0). */
  metricsPort: number | null;
  /** production: https only and public addresses only; otherwise http and private targets allowed. */
  targetMode: TargetMode;
  secretKey: Buffer | null;
  attemptTimeoutMs: number;
  concurrency: number;
  hostConcurrency: number;
  prefetch: number;
  retentionDays: number;
  databasePoolSize: number;
  shutdownGraceMs: number;
}

/** The SSRF policy a NODE_ENV stands for: only production restricts targets (DESIGN.md). */
export function targetModeOf(nodeEnv: string): TargetMode {
  return nodeEnv === 'production' ? 'production' : 'development';
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const parsed = parseEnv(WebhooksEnvSchema, environment);
  return {
    nodeEnv: parsed.NODE_ENV,
    logLevel: parsed.LOG_LEVEL,
    databaseUrl: serviceDatabaseUrl(
      parsed.DATABASE_URL,
      FLEET.webhooks.database,
      parsed.WEBHOOKS_DATABASE_URL,
    ),
    amqpUrl: parsed.AMQP_URL,
    grpcHost: parsed.GRPC_HOST,
    grpcPort: parsed.GRPC_PORT,
    metricsHost: parsed.METRICS_HOST,
    metricsPort: parsed.METRICS_PORT,
    targetMode: targetModeOf(parsed.NODE_ENV),
    secretKey: parsed.WEBHOOK_SECRET_KEY === undefined ? null : parseSecretKey(parsed.WEBHOOK_SECRET_KEY),
    attemptTimeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
    concurrency: parsed.WEBHOOK_CONCURRENCY,
    hostConcurrency: parsed.WEBHOOK_HOST_CONCURRENCY,
    prefetch: parsed.WEBHOOK_CONSUMER_PREFETCH,
    retentionDays: parsed.DELIVERY_RETENTION_DAYS,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
  };
}
