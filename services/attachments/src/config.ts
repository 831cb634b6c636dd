/** The attachment service's configuration, from the environment, validated once at start. */
import os from 'node:os';
import path from 'node:path';
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
import {
  ALLOWED_TYPES_DEFAULT,
  checkAllowedTypes,
  DEFAULT_MAX_BYTES,
  MAX_CONFIGURABLE_BYTES,
} from './uploads/file-type-rules.js';

/** Where and how the bytes are stored (an S3-compatible endpoint: MinIO, or s3rver locally). */
export interface ObjectStoreConfig {
  /** http(s)://host:port of the store. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  bucket: string;
}

/** What an upload may be. */
export interface UploadPolicy {
  /** Largest accepted file, in bytes (the gateway stops earlier with the same limit). */
  maxBytes: number;
  /** MIME types that may be stored (see uploads/file-type-rules.ts for how a type is decided). */
  allowedTypes: ReadonlySet<string>;
  /** Folder for files being received; each is removed once stored or refused. */
  spoolDir: string;
  /** An upload that sends nothing for this long is given up on (its sender is gone). */
  idleTimeoutMs: number;
}

/** The default spool folder (one per machine user; files in it are per upload). */
export const DEFAULT_SPOOL_DIR = path.join(os.tmpdir(), 'tix-attachments');
export const DEFAULT_UPLOAD_IDLE_TIMEOUT_MS = 30_000;

const AttachmentsEnvSchema = z
  .object({
    NODE_ENV: env.nodeEnv,
    LOG_LEVEL: env.logLevel,
    /** The PostgreSQL server; the service uses its own database (tix_attachments) on it. */
    DATABASE_URL: env.url(DEFAULT_DATABASE_SERVER_URL),
    /** Overrides the whole database URL. */
    ATTACHMENTS_DATABASE_URL: env.optionalUrl,
    AMQP_URL: env.url(DEFAULT_AMQP_URL),
    GRPC_HOST: env.host('127.0.0.1'),
    GRPC_PORT: env.port(FLEET.attachments.defaultPort),
    /** Where GET /metrics (Prometheus) listens; METRICS_PORT=0 serves no metrics endpoint. */
    METRICS_HOST: env.host('127.0.0.1'),
    METRICS_PORT: metricsPortSchema(DEFAULT_METRICS_PORTS.attachments),
    /** Every attachment hangs off a ticket: the service cannot run without the ticket service. */
    TICKETS_SERVICE_ADDR: env
      .serviceAddress('tickets')
      .refine(
        (value) => value !== SERVICE_NOT_DEPLOYED,
        'the attachment service needs the ticket service (attachments belong to live tickets)',
      ),
    /** Deadline of each call to the ticket service. */
    SERVICE_DEADLINE_MS: env.positiveInt(5_000),
    DATABASE_POOL_SIZE: env.positiveInt(10),
    S3_ENDPOINT: env.url('http://127.0.0.1:9000').refine((value) => /^https?:\/\//.test(value), {
      message: 'expected an http:// or https:// URL',
    }),
    S3_ACCESS_KEY: z.string().min(1).optional(),
    S3_SECRET_KEY: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** S3 bucket naming rules: 3-63 lower-case letters, digits, dots and hyphens. */
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name')
      .default('tix-attachments'),
    /** How long start-up waits for the store (to create the bucket) before giving up. */
    S3_STARTUP_TIMEOUT_MS: env.positiveInt(60_000),
    ATTACHMENT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(MAX_CONFIGURABLE_BYTES, `at most ${MAX_CONFIGURABLE_BYTES} (size_bytes is a 32-bit integer)`)
      .default(DEFAULT_MAX_BYTES),
    ATTACHMENT_ALLOWED_TYPES: env.list(ALLOWED_TYPES_DEFAULT.join(',')).superRefine((types, context) => {
      for (const problem of checkAllowedTypes(types)) context.addIssue({ code: 'custom', message: problem });
    }),
    ATTACHMENT_SPOOL_DIR: z.string().min(1).default(DEFAULT_SPOOL_DIR),
    /** An upload stream silent this long is abandoned (504) and its spool file removed. */
    ATTACHMENT_UPLOAD_IDLE_TIMEOUT_MS: env.positiveInt(DEFAULT_UPLOAD_IDLE_TIMEOUT_MS),
    /** How often deleted attachments whose object removal failed are retried. */
    ATTACHMENT_SWEEP_INTERVAL_MS: env.positiveInt(60_000),
    /** How long in-flight calls may finish after SIGTERM before they are cancelled. */
    SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  })
  .superRefine((value, context) => {
    if (value.NODE_ENV !== 'production') return;
    for (const name of ['S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const) {
      if (value[name] === undefined)
        context.addIssue({ code: 'custom', path: [name], message: 'required in production' });
    }
  });

export interface AttachmentsConfig {
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
  store: ObjectStoreConfig;
  storeStartupTimeoutMs: number;
  uploads: UploadPolicy;
  sweepIntervalMs: number;
  shutdownGraceMs: number;
}

/** The embedded store's credentials (s3rver's fixed pair), used outside production when unset. */
const LOCAL_STORE_CREDENTIALS = 'S3RVER';

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): AttachmentsConfig {
  const parsed = parseEnv(AttachmentsEnvSchema, environment);
  return {
    nodeEnv: parsed.NODE_ENV,
    logLevel: parsed.LOG_LEVEL,
    databaseUrl: serviceDatabaseUrl(
      parsed.DATABASE_URL,
      FLEET.attachments.database,
      parsed.ATTACHMENTS_DATABASE_URL,
    ),
    amqpUrl: parsed.AMQP_URL,
    grpcHost: parsed.GRPC_HOST,
    grpcPort: parsed.GRPC_PORT,
    metricsHost: parsed.METRICS_HOST,
    metricsPort: parsed.METRICS_PORT,
    ticketsAddress: parsed.TICKETS_SERVICE_ADDR,
    serviceDeadlineMs: parsed.SERVICE_DEADLINE_MS,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    store: {
      endpoint: parsed.S3_ENDPOINT,
      accessKey: parsed.S3_ACCESS_KEY ?? LOCAL_STORE_CREDENTIALS,
      secretKey: parsed.S3_SECRET_KEY ?? LOCAL_STORE_CREDENTIALS,
      region: parsed.S3_REGION,
      bucket: parsed.S3_BUCKET,
    },
    storeStartupTimeoutMs: parsed.S3_STARTUP_TIMEOUT_MS,
    uploads: {
      maxBytes: parsed.ATTACHMENT_MAX_BYTES,
      allowedTypes: new Set(parsed.ATTACHMENT_ALLOWED_TYPES.map((type) => type.toLowerCase())),
      spoolDir: parsed.ATTACHMENT_SPOOL_DIR,
      idleTimeoutMs: parsed.ATTACHMENT_UPLOAD_IDLE_TIMEOUT_MS,
    },
    sweepIntervalMs: parsed.ATTACHMENT_SWEEP_INTERVAL_MS,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
  };
}
