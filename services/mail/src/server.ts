/**
 * The mail service: the SMTP listener and the IMAP supervisor store raw mail durably (object store +
 * inbound_messages) -> gRPC handlers for mailboxes and messages. Outbound: the consumer of
 * comment.created queues reply mail in outbound_messages, the sender sends every queued row.
 * main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMailTransport, createSecretBox, defineTixService, grpcService } from '@tix/kit';
import { loadConfig } from './config.js';
import { startImapSupervisor } from './inbound/imap-fetcher.js';
import { createRawStore } from './inbound/raw-store.js';
import { startSmtpListener } from './inbound/smtp-listener.js';
import { mailHandlers } from './mail-handlers.js';
import { createDirectory } from './processing/directory.js';
import { startInboundProcessor, type ProcessorOptions } from './processing/processor.js';
import type { ProcessDeps } from './processing/process-message.js';
import { systemResolver, type DnsResolver } from './processing/sender-auth.js';
import { startReplyConsumer } from './outbound/consumer.js';
import { startSender, type SenderOptions } from './outbound/sender.js';

export const MAIL_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface MailServiceOptions {
  /** How often the IMAP mailbox list is re-read (tests make it short). */
  imapRescanMs?: number;
  /** The sender's timings (tests make retries and leases short). */
  sender?: Pick<SenderOptions, 'retryDelay' | 'leaseMs' | 'pollIntervalMs' | 'autoReplyLimit'>;
  /** The inbound processor's timings (tests make the lease short), and a crash hook for tests. */
  processor?: Omit<ProcessorOptions, 'connectionString'> & Pick<ProcessDeps, 'onStage'>;
  /** The DNS of sender authentication; default node's on MAIL_DNS_SERVERS (tests: a static one). */
  resolver?: DnsResolver;
  /** false: no inbound processor (tests of intake alone, without the peers it writes to). */
  inbound?: boolean;
}

export const mailService = (options: MailServiceOptions = {}) =>
  defineTixService({
    name: 'mail',
    config: loadConfig,
    migrations: MAIL_MIGRATIONS_DIR,
    peers: ['lookup', 'tickets', 'customers', 'attachments', 'comments'],
    outbox: false,
    register: async ({ config, logger, pool, peers }) => {
      const secrets = createSecretBox(config.secretKey, 'MAIL_SECRET_KEY');
      if (!secrets.encrypts)
        logger.warn('MAIL_SECRET_KEY is not set: mailbox secrets are stored unencrypted (development only)');
      const store = createRawStore(config.store);
      await store.ensureBucket();
      const smtp = await startSmtpListener({ ...config.smtp, pool, store, lookup: peers.lookup, logger });
      const imap = startImapSupervisor({ pool, store, secrets, logger, rescanMs: options.imapRescanMs });
      // The mail user the processor, the reply consumer and the sender all act as.
      const directory = createDirectory(peers.lookup, config.systemUserId);
      const caller = { principal: () => directory.principal() };
      const transport = createMailTransport(
        { ...config.outbound, from: `Tix <no-reply@${config.smtp.domain}>` },
        logger,
      );
      if (transport.kind === 'folder')
        logger.info({ mail_dir: config.outbound.dir }, 'no SMTP_URL: mail is written to MAIL_DIR');
      const sender = startSender({
        pool,
        transport,
        attachments: peers.attachments,
        caller,
        logger,
        domain: config.smtp.domain,
        tokenSecret: config.tokenSecret,
        maxAttempts: config.outbound.maxAttempts,
        ...options.sender,
      });
      const { onStage, ...processorOptions } = options.processor ?? {};
      const processor =
        options.inbound === false
          ? null
          : startInboundProcessor(
              {
                pool,
                store,
                tickets: peers.tickets,
                comments: peers.comments,
                customers: peers.customers,
                attachments: peers.attachments,
                directory,
                domain: config.smtp.domain,
                tokenSecret: config.tokenSecret,
                trustedAuthservIds: config.trustedAuthservIds,
                resolver: options.resolver ?? systemResolver(config.dns),
                dnsBounds: {
                  timeoutMs: config.dns.timeoutMs,
                  budgetMs: 4 * config.dns.timeoutMs,
                  maxLookups: 50,
                },
                maxBytes: config.smtp.maxBytes,
                logger,
                ...(onStage ? { onStage } : {}),
              },
              {
                connectionString: config.databaseUrl,
                leaseMs: config.processingLeaseMs,
                onQueued: () => sender.wake(),
                ...processorOptions,
              },
            );
      return {
        grpc: grpcService('mail', mailHandlers({ pool, secrets })),
        consumers: {
          replies: () =>
            startReplyConsumer({
              amqpUrl: config.amqpUrl,
              prefetch: config.prefetch,
              logger,
              reply: {
                pool,
                tickets: peers.tickets,
                customers: peers.customers,
                lookup: peers.lookup,
                caller,
                domain: config.smtp.domain,
                tokenSecret: config.tokenSecret,
                logger,
                onQueued: () => sender.wake(),
              },
            }),
        },
        workers: { smtp, imap, sender, ...(processor ? { processor } : {}) },
      };
    },
  });
