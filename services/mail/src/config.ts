/** The mail service's configuration, from the environment, validated once at start. */
import { createHmac } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  env,
  isSmtpUrl,
  OBJECT_STORE_PRODUCTION_VARIABLES,
  OBJECT_STORE_VARIABLES,
  objectStoreBucket,
  objectStoreConfig,
  parseSecretKey,
  serviceConfig,
} from '@tix/kit';

/** Largest message the listener accepts (25 MB, the attachment limit). */
export const DEFAULT_MAIL_MAX_BYTES = 25 * 1024 * 1024;

/**
 * The reply-token secret: MAIL_TOKEN_SECRET, else a key derived from MAIL_SECRET_KEY (so production
 * needs no second secret), else a development constant (tokens still verify across restarts).
 */
function tokenSecretOf(tokenSecret: string | undefined, secretKey: string | undefined): string {
  if (tokenSecret !== undefined) return tokenSecret;
  const key = secretKey === undefined ? null : parseSecretKey(secretKey);
  if (key === null) return 'tix-development-mail-token-secret';
  return createHmac('sha256', key).update('tix mail reply tokens').digest('hex');
}

export const loadConfig = serviceConfig('mail', {
  peers: {
    lookup: 'the mail service needs the lookup service (a recipient address names a project slug)',
    tickets: 'the mail service needs the ticket service (a reply is mailed for its ticket)',
    customers: 'the mail service needs the customer service (replies go to the requester and CCs)',
    attachments: "the mail service needs the attachment service (a reply carries its comment's files)",
    comments: "the mail service needs the comment service (a customer's reply becomes a comment)",
  },
  variables: {
    /** The SMTP listener (MX or relay forwarding); 0 picks a free port (tests). */
    MAIL_SMTP_HOST: env.host('127.0.0.1'),
    MAIL_SMTP_PORT: env.port(2525),
    /** The domain of project addresses: <slug>@MAIL_DOMAIN and <slug>+<anything>@MAIL_DOMAIN. */
    MAIL_DOMAIN: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'expected a domain name')
      .default('tix.localhost'),
    MAIL_MAX_BYTES: env.positiveInt(DEFAULT_MAIL_MAX_BYTES),
    /** Seals mailbox passwords and tokens (32 bytes, base64 or hex); required in production. */
    MAIL_SECRET_KEY: z
      .string()
      .refine((value) => parseSecretKey(value) !== null, { message: 'expected 32 bytes, base64 or hex' })
      .optional(),
    ...OBJECT_STORE_VARIABLES,
    /** Outbound relay (smtp:// or smtps://); unset: .eml files in MAIL_DIR outside production. */
    SMTP_URL: z
      .string()
      .trim()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .refine((value) => value === undefined || isSmtpUrl(value), {
        message: 'expected an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com',
      }),
    /** Where outgoing mail is written without SMTP_URL (development; `.tix/mail` under pnpm start). */
    MAIL_DIR: z.string().trim().min(1).optional(),
    /**
     * Signs the reply token of outgoing mail ([ref:...], plus-address). Unset: derived from
     * MAIL_SECRET_KEY (required in production), or a development constant without either.
     */
    MAIL_TOKEN_SECRET: z.string().min(16, 'expected at least 16 characters').optional(),
    /** Attempts before an outgoing mail is `failed` (docs/decisions.md, "Outbound mail"). */
    MAIL_SEND_MAX_ATTEMPTS: env.positiveInt(8),
    /** comment.created events handled at once. */
    MAIL_CONSUMER_PREFETCH: env.positiveInt(8),
    /** The user id the mail service acts as; unset: lookup's "Tix Mail" user (mail@tix.invalid). */
    MAIL_SYSTEM_USER_ID: z.coerce.number().int().positive().optional(),
    /**
     * Comma-separated authserv-ids of the receiving relay whose Authentication-Results headers are
     * trusted (SPF/DKIM/DMARC); unset: none are, every result is recorded as `none`.
     */
    MAIL_TRUSTED_AUTHSERV_IDS: z.string().trim().default(''),
    /**
     * Name servers for Tix's own SPF/DKIM/DMARC checks (comma-separated ip or ip:port); unset: the
     * system's (docs/mail.md, "Sender authentication").
     */
    MAIL_DNS_SERVERS: z
      .string()
      .trim()
      .default('')
      .refine(
        (value) =>
          value === '' ||
          value
            .split(',')
            .every((server) => /^(\[[0-9a-f:.]+\]|[0-9.]+|[0-9a-f:]+)(:\d{1,5})?$/i.test(server.trim())),
        { message: 'expected comma-separated IP addresses (ip or ip:port), e.g. 10.0.0.2,10.0.0.3:53' },
      ),
    /** One DNS lookup's limit; a message's lookups together get four times this. */
    MAIL_DNS_TIMEOUT_MS: env.positiveInt(3_000),
    /** A message `processing` longer than this is taken over (its processor died); docs/decisions.md. */
    MAIL_PROCESSING_LEASE_MS: env.positiveInt(5 * 60_000),
    /** The mail service's bucket of raw messages. */
    MAIL_S3_BUCKET: objectStoreBucket('tix-mail'),
  },
  check: (values, context) => {
    if (values.NODE_ENV !== 'production') return;
    for (const name of [...OBJECT_STORE_PRODUCTION_VARIABLES, 'MAIL_SECRET_KEY'] as const) {
      if (values[name] === undefined)
        context.addIssue({ code: 'custom', path: [name], message: 'required in production' });
    }
  },
  read: (values, common) => ({
    smtp: {
      host: values.MAIL_SMTP_HOST,
      port: values.MAIL_SMTP_PORT,
      domain: values.MAIL_DOMAIN.toLowerCase(),
      maxBytes: values.MAIL_MAX_BYTES,
    },
    outbound: {
      smtpUrl: values.SMTP_URL,
      // Production never writes mail to disk: without SMTP_URL the outbox stays queued (logged).
      dir: common.nodeEnv === 'production' ? null : (values.MAIL_DIR ?? path.join(os.tmpdir(), 'tix-mail')),
      maxAttempts: values.MAIL_SEND_MAX_ATTEMPTS,
    },
    prefetch: values.MAIL_CONSUMER_PREFETCH,
    tokenSecret: tokenSecretOf(values.MAIL_TOKEN_SECRET, values.MAIL_SECRET_KEY),
    systemUserId: values.MAIL_SYSTEM_USER_ID ?? null,
    processingLeaseMs: values.MAIL_PROCESSING_LEASE_MS,
    trustedAuthservIds: values.MAIL_TRUSTED_AUTHSERV_IDS.split(',')
      .map((id) => id.trim().toLowerCase())
      .filter((id) => id !== ''),
    dns: {
      servers: values.MAIL_DNS_SERVERS.split(',')
        .map((server) => server.trim())
        .filter((server) => server !== ''),
      timeoutMs: values.MAIL_DNS_TIMEOUT_MS,
    },
    secretKey: values.MAIL_SECRET_KEY === undefined ? null : parseSecretKey(values.MAIL_SECRET_KEY),
    store: objectStoreConfig(values, values.MAIL_S3_BUCKET),
  }),
});

export type MailConfig = ReturnType<typeof loadConfig>;
export type MailStoreConfig = MailConfig['store'];
export type OutboundConfig = MailConfig['outbound'];
