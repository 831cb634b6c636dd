/**
 * A real mail service for tests: a fresh migrated database, the SMTP listener on a free loopback
 * port, the IMAP supervisor and the gRPC API. It needs a lookup service and an S3 store
 * (startTestS3Server from '@tix/attachment-service/testing'); outbound mail also needs tickets,
 * customers and attachments (their addresses) and a broker (amqpUrl) for the reply consumer.
 *
 *   const mail = await startTestMailServer({ lookupAddress: lookup.address, store: s3.config });
 *   ... nodemailer to 127.0.0.1:mail.smtpPort ...
 *   await mail.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { DEFAULT_MAIL_MAX_BYTES, loadConfig, type MailStoreConfig } from './config.js';
import type { SenderOptions } from './outbound/sender.js';
import { mailService, type MailServiceOptions } from './server.js';

export { MAIL_MIGRATIONS_DIR } from './server.js';
export { startTestDovecot, type TestDovecot } from './testing-dovecot.js';

export interface TestMailServerOptions {
  lookupAddress: string;
  store: MailStoreConfig;
  maxBytes?: number;
  domain?: string;
  databaseUrl?: string;
  label?: string;
  logger?: Logger;
  /** The other peers (default: the fleet map's addresses, for tests that never call them). */
  ticketsAddress?: string;
  customersAddress?: string;
  attachmentsAddress?: string;
  commentsAddress?: string;
  /** When given, the reply consumer runs on this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
  /** Outgoing mail: a relay (smtp://127.0.0.1:port) or a folder; default a folder in the OS temp dir. */
  outbound?: { smtpUrl?: string; dir?: string; maxAttempts?: number };
  sender?: Pick<SenderOptions, 'retryDelay' | 'leaseMs' | 'pollIntervalMs' | 'autoReplyLimit'>;
  /** The inbound processor's timings. */
  processor?: MailServiceOptions['processor'];
  tokenSecret?: string;
  systemUserId?: number;
}

export type TestMailServer = Awaited<ReturnType<typeof startTestMailServer>>;

export async function startTestMailServer(options: TestMailServerOptions) {
  const defaults = loadConfig({});
  const service = await startTestService(
    mailService({ imapRescanMs: 200, sender: options.sender, processor: options.processor }),
    {
      label: options.label,
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      amqpUrl: options.amqpUrl,
      config: {
        peers: {
          lookup: options.lookupAddress,
          ...(options.ticketsAddress === undefined ? {} : { tickets: options.ticketsAddress }),
          ...(options.customersAddress === undefined ? {} : { customers: options.customersAddress }),
          ...(options.attachmentsAddress === undefined ? {} : { attachments: options.attachmentsAddress }),
          ...(options.commentsAddress === undefined ? {} : { comments: options.commentsAddress }),
        },
        outbound: {
          smtpUrl: options.outbound?.smtpUrl,
          dir: options.outbound?.dir ?? defaults.outbound.dir,
          maxAttempts: options.outbound?.maxAttempts ?? defaults.outbound.maxAttempts,
        },
        tokenSecret: options.tokenSecret ?? defaults.tokenSecret,
        systemUserId: options.systemUserId ?? null,
        store: { ...options.store, bucket: 'tix-mail' },
        smtp: {
          host: '127.0.0.1',
          port: 0,
          domain: options.domain ?? 'tix.localhost',
          maxBytes: options.maxBytes ?? DEFAULT_MAIL_MAX_BYTES,
        },
      },
    },
  );
  return { ...service, smtpPort: service.parts.workers.smtp.port };
}
