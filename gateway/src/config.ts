/**
 * The gateway's configuration, read once from the environment at start. A bad value stops the
 * process with a message naming the variable (kit parseEnv). Cross-variable rules (production
 * requirements, one port serving both host roles) are checked here too, so nothing downstream needs
 * to re-validate.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_AMQP_URL,
  env,
  metricsPortSchema,
  parseEnv,
  type BreakerOptions,
  type LogLevel,
} from '@tix/kit';
import {
  ATTACHMENT_LIMITS,
  SERVICE_NAMES,
  SERVICE_NOT_DEPLOYED,
  serviceAddressVariable,
  type ServiceName,
  GATEWAY_DEFAULT_PORTS,
} from '@tix/protos';
import { LIMITS_ENV, limitsConfigFrom, type LimitsConfig } from './limits/config.js';
import type { MailConfig } from './mail/mail-transport.js';
import type { CorsPolicy } from './middleware/cors.js';
import { normalizeHostName } from './middleware/host-role.js';
import { DEFAULT_ATTACHMENT_MAX_BYTES, type AttachmentLimits } from './routes/v1/attachments.schemas.js';

export interface GatewayConfig {
  nodeEnv: 'development' | 'test' | 'production';
  production: boolean;
  logLevel: LogLevel;
  host: string;
  apiPort: number;
  appPort: number;
  /** Where GET /metrics (Prometheus) listens, apart from the public listeners. */
  metricsHost: string;
  /** null: no /metrics endpoint (METRICS_PORT=0). */
  metricsPort: number | null;
  /** Host names (lower case, no port) that select the API role; empty = the port decides. */
  apiHosts: string[];
  /** Host names (lower case, no port) that select the app (session) role. */
  appHosts: string[];
  cors: CorsPolicy;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  serviceDeadlineMs: number;
  /** Circuit breaker of each service client; false when SERVICE_BREAKER_ENABLED=false. */
  serviceBreaker: BreakerOptions | false;
  authCacheTtlMs: number;
  projectCacheTtlMs: number;
  amqpUrl: string;
  redisUrl: string | undefined;
  sessionTtlSeconds: number;
  shutdownGraceMs: number;
  readinessTimeoutMs: number;
  /** host:port of each service; null when the service is not deployed (development only). */
  serviceAddresses: Record<ServiceName, string | null>;
  attachments: AttachmentLimits;
  /** Rate limits, idempotency and 402 quotas (limits/config.ts). */
  limits: LimitsConfig;
  /** The session host's public origin (APP_URL), where password reset links point. */
  appUrl: string;
  /** How mail leaves (mail/mail-transport.ts). */
  mail: MailConfig;
}

const BODY_LIMIT_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };
const MAX_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** "1mb" -> 1048576; accepts b, kb, mb (case-insensitive) or a plain byte count. */
export function parseByteSize(value: string): number | undefined {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * BODY_LIMIT_UNITS[(match[2] ?? 'b').toLowerCase()]!;
  return bytes > 0 && bytes <= MAX_BODY_LIMIT_BYTES ? bytes : undefined;
}

const HOST_NAME = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/;

const hostList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => normalizeHostName(item))
      .filter((item) => item.length > 0),
  )
  .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), 'expected a comma list of host names');

/** Parses CORS_ORIGINS: `*` alone, or a comma list of origins (scheme://host[:port], no path). */
export function parseCorsOrigins(value: string): CorsPolicy | undefined {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (items.length === 1 && items[0] === '*') return { mode: 'wildcard' };
  if (items.length === 0 || items.includes('*')) return undefined;
  const origins: string[] = [];
  for (const item of items) {
    const trimmed = item.endsWith('/') ? item.slice(0, -1) : item;
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return undefined;
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== trimmed.toLowerCase()) return undefined;
    origins.push(url.origin);
  }
  return { mode: 'list', origins };
}

const serviceAddressSchemas = Object.fromEntries(
  SERVICE_NAMES.map((name) => [serviceAddressVariable(name), env.serviceAddress(name)]),
) as Record<string, z.ZodType<string>>;

/** The <NAME>_SERVICE_ADDR value in the parsed environment (its keys are computed, so untyped). */
function serviceAddressIn(parsed: object, name: ServiceName): string | undefined {
  const value = (parsed as Record<string, unknown>)[serviceAddressVariable(name)];
  return typeof value === 'string' ? value : undefined;
}

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** An empty value (as compose files often leave it) means "not set". */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value?.trim() === '' ? undefined : value?.trim()));

/** True for an smtp:// or smtps:// URL with a host. */
export function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['smtp:', 'smtps:'].includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** True for an http(s) origin, optionally with a path prefix (no query or fragment). */
export function isAppUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

const GatewayEnvSchema = z
  .object({
    NODE_ENV: env.nodeEnv,
    LOG_LEVEL: env.logLevel,
    GATEWAY_HOST: env.host('127.0.0.1'),
    GATEWAY_API_PORT: env.port(GATEWAY_DEFAULT_PORTS.api),
    GATEWAY_APP_PORT: env.port(GATEWAY_DEFAULT_PORTS.app),
    METRICS_HOST: env.host('127.0.0.1'),
    METRICS_PORT: metricsPortSchema(GATEWAY_DEFAULT_PORTS.metrics),
    API_HOSTS: hostList,
    APP_HOSTS: hostList,
    CORS_ORIGINS: z
      .string()
      .optional()
      // An empty value (as compose files often leave it) means "not set".
      .transform((value) => (value?.trim() === '' ? undefined : value))
      .refine(
        (value) => value === undefined || parseCorsOrigins(value) !== undefined,
        'expected "*" or a comma list of origins such as https://app.example.com',
      ),
    BODY_LIMIT: z
      .string()
      .default('1mb')
      .refine((value) => parseByteSize(value) !== undefined, 'expected a size such as 1mb, 512kb or 1048576'),
    SERVICE_DEADLINE_MS: env.positiveInt(5_000),
    // Circuit breakers (kit grpc/breaker.ts); defaults as DEFAULT_BREAKER_OPTIONS.
    SERVICE_BREAKER_ENABLED: env.boolean(true),
    SERVICE_BREAKER_RESET_MS: env.positiveInt(5_000),
    SERVICE_BREAKER_ERROR_PERCENT: z.coerce.number().int().min(1).max(99).default(50),
    SERVICE_BREAKER_VOLUME: env.positiveInt(5),
    // opossum splits the window into 10 buckets; below 100 ms they would be empty ticks.
    SERVICE_BREAKER_WINDOW_MS: z.coerce.number().int().min(100).default(10_000),
    AUTH_CACHE_TTL_MS: nonNegativeInt(60_000),
    PROJECT_CACHE_TTL_MS: nonNegativeInt(30_000),
    AMQP_URL: env.url(DEFAULT_AMQP_URL),
    REDIS_URL: env.optionalUrl,
    SESSION_TTL_SECONDS: env.positiveInt(28_800),
    SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
    READINESS_TIMEOUT_MS: env.positiveInt(1_000),
    /** Keep equal to the attachment service's ATTACHMENT_MAX_BYTES. */
    ATTACHMENT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(ATTACHMENT_LIMITS.maxConfigurableBytes)
      .default(DEFAULT_ATTACHMENT_MAX_BYTES),
    /** How long one upload or download may take end to end (slow clients). */
    ATTACHMENT_TRANSFER_TIMEOUT_MS: env.positiveInt(10 * 60_000),
    // Password reset mail (mail/): the relay, the sender, where links point, the development folder.
    SMTP_URL: optionalText.refine(
      (value) => value === undefined || isSmtpUrl(value),
      'expected an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com',
    ),
    MAIL_FROM: z.string().trim().min(1).max(320).default('Tix <no-reply@localhost>'),
    APP_URL: optionalText.refine(
      (value) => value === undefined || isAppUrl(value),
      'expected the public origin of the session host, e.g. https://app.example.com',
    ),
    MAIL_DIR: optionalText,
    ...LIMITS_ENV,
    ...serviceAddressSchemas,
  })
  .superRefine((value, context) => {
    const production = value.NODE_ENV === 'production';
    if (production && value.CORS_ORIGINS === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['CORS_ORIGINS'],
        message: 'required in production ("*" or a comma list of origins)',
      });
    }
    if (production && value.APP_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['APP_URL'],
        message: 'required in production (the public origin of the session host, for password reset links)',
      });
    }
    if (production) {
      for (const name of SERVICE_NAMES) {
        const variable = serviceAddressVariable(name);
        if (serviceAddressIn(value, name) === SERVICE_NOT_DEPLOYED) {
          context.addIssue({
            code: 'custom',
            path: [variable],
            message: `"${SERVICE_NOT_DEPLOYED}" is allowed only outside production`,
          });
        }
      }
    }
    if (
      value.GATEWAY_API_PORT === value.GATEWAY_APP_PORT &&
      (value.API_HOSTS.length === 0 || value.APP_HOSTS.length === 0)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['GATEWAY_APP_PORT'],
        message: 'equals GATEWAY_API_PORT, so API_HOSTS and APP_HOSTS must both be set',
      });
    }
    const both = value.API_HOSTS.filter((host) => value.APP_HOSTS.includes(host));
    if (both.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['APP_HOSTS'],
        message: `host names also listed in API_HOSTS: ${both.join(', ')}`,
      });
    }
  });

/** Reads and validates the gateway's environment; throws ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const value = parseEnv(GatewayEnvSchema, environment);
  const production = value.NODE_ENV === 'production';
  const serviceAddresses = Object.fromEntries(
    SERVICE_NAMES.map((name) => {
      const address = serviceAddressIn(value, name);
      return [name, address === SERVICE_NOT_DEPLOYED || address === undefined ? null : address];
    }),
  ) as Record<ServiceName, string | null>;
  return {
    nodeEnv: value.NODE_ENV,
    production,
    logLevel: value.LOG_LEVEL,
    host: value.GATEWAY_HOST,
    apiPort: value.GATEWAY_API_PORT,
    appPort: value.GATEWAY_APP_PORT,
    metricsHost: value.METRICS_HOST,
    metricsPort: value.METRICS_PORT,
    apiHosts: value.API_HOSTS,
    appHosts: value.APP_HOSTS,
    // Outside production the default is wildcard mode (no credentials), convenient for local tools.
    cors: parseCorsOrigins(value.CORS_ORIGINS ?? '*')!,
    bodyLimitBytes: parseByteSize(value.BODY_LIMIT)!,
    serviceDeadlineMs: value.SERVICE_DEADLINE_MS,
    serviceBreaker: value.SERVICE_BREAKER_ENABLED && {
      resetTimeoutMs: value.SERVICE_BREAKER_RESET_MS,
      errorThresholdPercentage: value.SERVICE_BREAKER_ERROR_PERCENT,
      volumeThreshold: value.SERVICE_BREAKER_VOLUME,
      rollingCountTimeoutMs: value.SERVICE_BREAKER_WINDOW_MS,
    },
    authCacheTtlMs: value.AUTH_CACHE_TTL_MS,
    projectCacheTtlMs: value.PROJECT_CACHE_TTL_MS,
    amqpUrl: value.AMQP_URL,
    redisUrl: value.REDIS_URL,
    sessionTtlSeconds: value.SESSION_TTL_SECONDS,
    shutdownGraceMs: value.SHUTDOWN_GRACE_MS,
    readinessTimeoutMs: value.READINESS_TIMEOUT_MS,
    serviceAddresses,
    attachments: {
      maxBytes: value.ATTACHMENT_MAX_BYTES,
      transferDeadlineMs: value.ATTACHMENT_TRANSFER_TIMEOUT_MS,
    },
    limits: limitsConfigFrom(value),
    appUrl: (value.APP_URL ?? `http://localhost:${value.GATEWAY_APP_PORT}`).replace(/\/+$/, ''),
    mail: {
      smtpUrl: value.SMTP_URL,
      from: value.MAIL_FROM,
      // Production never writes mail to disk: without SMTP_URL it is dropped (and logged).
      dir: production ? null : (value.MAIL_DIR ?? path.join(os.tmpdir(), 'tix-mail')),
    },
  };
}
