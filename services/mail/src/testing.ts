/**
 * A real mail service for tests: a fresh migrated database, the SMTP listener on a free loopback
 * port, the IMAP supervisor, the inbound processor, the sender and the gRPC API. It needs a lookup
 * service and an S3 store (startTestS3Server from '@tix/attachment-service/testing'); processing
 * and outbound mail also need tickets, comments, customers and attachments (their addresses), and
 * the reply consumer a broker (amqpUrl).
 *
 *   const mail = await startTestMailServer({ lookupAddress: lookup.address, store: s3.config });
 *   ... nodemailer to 127.0.0.1:mail.smtpPort ...
 *   await mail.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { DEFAULT_MAIL_MAX_BYTES, loadConfig, type MailStoreConfig } from './config.js';
import type { SenderOptions } from './outbound/sender.js';
import type { DnsResolver } from './processing/sender-auth.js';
import { mailService, type MailServiceOptions } from './server.js';
import { staticResolver } from './testing-dns.js';

export { MAIL_MIGRATIONS_DIR } from './server.js';
export { startTestDovecot, type TestDovecot } from './testing-dovecot.js';
export { staticResolver, type StaticRecords } from './testing-dns.js';

export interface TestMailServerOptions {
  lookupAddress: string;
  /** The peers the inbound processor and the sender call; the processor runs only with tickets, comments and customers. */
  ticketsAddress?: string;
  commentsAddress?: string;
  customersAddress?: string;
  attachmentsAddress?: string;
  /** The inbound processor's timings and crash hook. */
  processor?: MailServiceOptions['processor'];
  /** Authentication-Results authserv-ids to trust. */
  trustedAuthservIds?: string[];
  /** DNS of sender authentication; default a static one that knows no name (testing-dns.ts). */
  resolver?: DnsResolver;
  store: MailStoreConfig;
  maxBytes?: number;
  domain?: string;
  databaseUrl?: string;
  label?: string;
  logger?: Logger;
  /** When given, the reply consumer runs on this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
  /** Outgoing mail: a relay (smtp://127.0.0.1:port) or a folder; default a folder in the OS temp dir. */
  outbound?: { smtpUrl?: string; dir?: string; maxAttempts?: number };
  /** The sender's timings. */
  sender?: Pick<SenderOptions, 'retryDelay' | 'leaseMs' | 'pollIntervalMs' | 'autoReplyLimit'>;
  tokenSecret?: string;
  systemUserId?: number;
}

export type TestMailServer = Awaited<ReturnType<typeof startTestMailServer>>;

export async function startTestMailServer(options: TestMailServerOptions) {
  const defaults = loadConfig({});
  const peers = {
    lookup: options.lookupAddress,
    ...(options.ticketsAddress ? { tickets: options.ticketsAddress } : {}),
    ...(options.commentsAddress ? { comments: options.commentsAddress } : {}),
    ...(options.customersAddress ? { customers: options.customersAddress } : {}),
    ...(options.attachmentsAddress ? { attachments: options.attachmentsAddress } : {}),
  };
  const processor = { pollIntervalMs: 200, retryDelayMs: 200, ...options.processor };
  // Without the peers it writes to, no processor: it would call whatever listens on their default ports.
  const inbound = Boolean(options.ticketsAddress && options.commentsAddress && options.customersAddress);
  const service = await startTestService(
    mailService({
      imapRescanMs: 200,
      processor,
      inbound,
      sender: options.sender,
      resolver: options.resolver ?? staticResolver(),
    }),
    {
      label: options.label,
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      amqpUrl: options.amqpUrl,
      config: {
        peers,
        ...(options.trustedAuthservIds ? { trustedAuthservIds: options.trustedAuthservIds } : {}),
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
