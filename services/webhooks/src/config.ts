/** The webhook service's configuration, from the environment, validated once at start. */
import { z } from 'zod';
import { env, serviceConfig } from '@tix/kit';
import type { TargetMode } from './delivery/target-policy.js';
import { parseSecretKey } from './subscriptions/secret-box.js';

/** The spec's per-attempt timeout. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

/** The SSRF policy a NODE_ENV stands for: only production restricts targets (docs/webhooks.md). */
export function targetModeOf(nodeEnv: string): TargetMode {
  return nodeEnv === 'production' ? 'production' : 'development';
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('webhooks', {
  databasePoolSize: 20,
  variables: {
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
  },
  check: (values, context) => {
    if (values.NODE_ENV === 'production' && values.WEBHOOK_SECRET_KEY === undefined)
      context.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRET_KEY'],
        message: 'required in production (signing secrets are encrypted at rest with it)',
      });
  },
  read: (values, common) => ({
    /** production: https only and public addresses only; otherwise http and private targets allowed. */
    targetMode: targetModeOf(common.nodeEnv),
    secretKey: values.WEBHOOK_SECRET_KEY === undefined ? null : parseSecretKey(values.WEBHOOK_SECRET_KEY),
    attemptTimeoutMs: values.WEBHOOK_TIMEOUT_MS,
    concurrency: values.WEBHOOK_CONCURRENCY,
    hostConcurrency: values.WEBHOOK_HOST_CONCURRENCY,
    prefetch: values.WEBHOOK_CONSUMER_PREFETCH,
    retentionDays: values.DELIVERY_RETENTION_DAYS,
  }),
});

export type WebhooksConfig = ReturnType<typeof loadConfig>;
