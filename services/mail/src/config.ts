/** The mail service's configuration, from the environment, validated once at start. */
import { z } from 'zod';
import { env, parseSecretKey, serviceConfig } from '@tix/kit';

/** Largest message the listener accepts (25 MB, the attachment limit). */
export const DEFAULT_MAIL_MAX_BYTES = 25 * 1024 * 1024;

/** The embedded store's credentials (s3rver's fixed pair, as the attachment service uses), outside production. */
const LOCAL_STORE_CREDENTIALS = 'S3RVER';

export const loadConfig = serviceConfig('mail', {
  peers: {
    lookup: 'the mail service needs the lookup service (a recipient address names a project slug)',
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
    S3_ENDPOINT: env.url('http://127.0.0.1:9000'),
    S3_ACCESS_KEY: z.string().min(1).optional(),
    S3_SECRET_KEY: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    MAIL_S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name')
      .default('tix-mail'),
  },
  check: (values, context) => {
    if (values.NODE_ENV !== 'production') return;
    for (const name of ['S3_ACCESS_KEY', 'S3_SECRET_KEY', 'MAIL_SECRET_KEY'] as const) {
      if (values[name] === undefined)
        context.addIssue({ code: 'custom', path: [name], message: 'required in production' });
    }
  },
  read: (values) => ({
    smtp: {
      host: values.MAIL_SMTP_HOST,
      port: values.MAIL_SMTP_PORT,
      domain: values.MAIL_DOMAIN.toLowerCase(),
      maxBytes: values.MAIL_MAX_BYTES,
    },
    secretKey: values.MAIL_SECRET_KEY === undefined ? null : parseSecretKey(values.MAIL_SECRET_KEY),
    store: {
      endpoint: values.S3_ENDPOINT,
      accessKey: values.S3_ACCESS_KEY ?? LOCAL_STORE_CREDENTIALS,
      secretKey: values.S3_SECRET_KEY ?? LOCAL_STORE_CREDENTIALS,
      region: values.S3_REGION,
      bucket: values.MAIL_S3_BUCKET,
    },
  }),
});

export type MailConfig = ReturnType<typeof loadConfig>;
export type MailStoreConfig = MailConfig['store'];
