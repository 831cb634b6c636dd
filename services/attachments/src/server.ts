/**
 * The attachment service: its store, the object store (bucket created, waiting for the store at
 * start) and the ticket service -> use cases -> handlers, relaying its outbox, with the sweeper that
 * finishes interrupted object removals. main.ts runs it; tests start the same composition
 * (testing.ts), optionally over an object store of their own.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService, type Logger } from '@tix/kit';
import { attachmentHandlers } from './attachments/attachment-handlers.js';
import { createAttachmentStore } from './attachments/attachment-store.js';
import { createTicketAccess } from './attachments/ticket-access.js';
import { loadConfig } from './config.js';
import { exportUserAttachmentsHandler } from './export/export-user-attachments.js';
import { createObjectStore, type ObjectStore } from '@tix/kit';
import { startObjectSweeper } from './sweeper/object-sweeper.js';
import { removeStaleSpoolFiles } from './uploads/spool.js';

/** The attachment service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const ATTACHMENTS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** Spool files older than this at start belong to a process that died while receiving them. */
const STALE_SPOOL_MS = 3_600_000;

/**
 * Creates the bucket, retrying while the store is not reachable yet (the launcher starts the store
 * and the services together), for at most `timeoutMs`.
 */
async function ensureBucketWithin(objects: ObjectStore, timeoutMs: number, logger: Logger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delayMs = 100;
  for (;;) {
    try {
      await objects.ensureBucket();
      return;
    } catch (error) {
      if (Date.now() + delayMs > deadline) throw error;
      logger.info({ bucket: objects.bucket, retry_in_ms: delayMs }, 'object store not reachable yet');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 2_000);
    }
  }
}

/** The attachment service, storing through `options.objects` when given (tests), else the configured store. */
export function attachmentService(options: { objects?: ObjectStore } = {}) {
  return defineTixService({
    name: 'attachments',
    config: loadConfig,
    migrations: ATTACHMENTS_MIGRATIONS_DIR,
    peers: ['tickets'],
    outbox: true,
    register: async ({ config, pool, peers, logger }) => {
      const objects = options.objects ?? createObjectStore(config.store);
      await ensureBucketWithin(objects, config.storeStartupTimeoutMs, logger);
      const staleSpoolFiles = await removeStaleSpoolFiles(config.uploads.spoolDir, STALE_SPOOL_MS);
      if (staleSpoolFiles > 0)
        logger.info({ removed: staleSpoolFiles }, 'removed spool files of interrupted uploads');
      const attachments = createAttachmentStore(pool);
      return {
        grpc: grpcService('attachments', {
          ...attachmentHandlers({
            attachments,
            objects,
            tickets: createTicketAccess(peers.tickets),
            uploads: config.uploads,
          }),
          ExportUserAttachments: exportUserAttachmentsHandler({ pool }),
        }),
        workers: {
          sweeper: startObjectSweeper({ attachments, objects, logger, intervalMs: config.sweepIntervalMs }),
        },
        objects,
      };
    },
  });
}
