/**
 * The mail service: the SMTP listener and the IMAP supervisor store raw mail durably (object store +
 * inbound_messages) -> gRPC handlers for mailboxes and messages. main.ts runs it; tests start the
 * same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSecretBox, defineTixService, grpcService } from '@tix/kit';
import { loadConfig } from './config.js';
import { startImapSupervisor } from './inbound/imap-fetcher.js';
import { createRawStore } from './inbound/raw-store.js';
import { startSmtpListener } from './inbound/smtp-listener.js';
import { mailHandlers } from './mail-handlers.js';

export const MAIL_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export interface MailServiceOptions {
  /** How often the IMAP mailbox list is re-read (tests make it short). */
  imapRescanMs?: number;
}

export const mailService = (options: MailServiceOptions = {}) =>
  defineTixService({
    name: 'mail',
    config: loadConfig,
    migrations: MAIL_MIGRATIONS_DIR,
    peers: ['lookup'],
    outbox: false,
    register: async ({ config, logger, pool, peers }) => {
      const secrets = createSecretBox(config.secretKey, 'MAIL_SECRET_KEY');
      if (!secrets.encrypts)
        logger.warn('MAIL_SECRET_KEY is not set: mailbox secrets are stored unencrypted (development only)');
      const store = createRawStore(config.store);
      await store.ensureBucket();
      const smtp = await startSmtpListener({ ...config.smtp, pool, store, lookup: peers.lookup, logger });
      const imap = startImapSupervisor({ pool, store, secrets, logger, rescanMs: options.imapRescanMs });
      return {
        grpc: grpcService('mail', mailHandlers({ pool, secrets })),
        workers: { smtp, imap },
      };
    },
  });
