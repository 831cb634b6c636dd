/**
 * The attachment service process: config -> object store (bucket created when missing, waiting for
 * the store up to S3_STARTUP_TIMEOUT_MS) -> database + ticket client -> gRPC server -> sweeper and
 * outbox relay, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the
 * sweeper and the relay, close the client and the database). Migrations are applied by the launcher
 * / a deploy job, never by every replica at start.
 */
import {
  createServiceClient,
  loadConfigOrExit,
  type RunningGrpcServer,
  startGrpcServer,
  startOutboxRelay,
  startTixProcess,
} from '@tix/kit';
import { loadConfig } from './config.js';
import { openDatabase } from './db.js';
import { createAttachmentStore } from './attachments/attachment-store.js';
import { createAttachmentService, ensureBucketWithin } from './server.js';
import { createObjectStore } from './storage/object-store.js';
import { startObjectSweeper } from './sweeper/object-sweeper.js';
import { removeStaleSpoolFiles } from './uploads/spool.js';

const config = loadConfigOrExit('attachments', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('attachments', config);
const objects = createObjectStore(config.store);
try {
  await ensureBucketWithin(objects, config.storeStartupTimeoutMs, logger);
} catch (error) {
  logger.fatal(
    { err: error, endpoint: config.store.endpoint, bucket: config.store.bucket },
    'object store unusable',
  );
  process.exit(1);
}
const staleSpoolFiles = await removeStaleSpoolFiles(config.uploads.spoolDir, 3_600_000);
if (staleSpoolFiles > 0)
  logger.info({ removed: staleSpoolFiles }, 'removed spool files of interrupted uploads');

const database = openDatabase(config.databaseUrl, { logger, maxConnections: config.databasePoolSize });
const tickets = createServiceClient('tickets', config.ticketsAddress, {
  deadlineMs: config.serviceDeadlineMs,
  logger, // breaker state changes
});
let server: RunningGrpcServer;
try {
  server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    services: [createAttachmentService({ pool: database.pool, objects, tickets, uploads: config.uploads })],
    logger,
  });
} catch (error) {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  tickets.close();
  await database.close();
  process.exit(1);
}
const sweeper = startObjectSweeper({
  attachments: createAttachmentStore(database.pool),
  objects,
  logger,
  intervalMs: config.sweepIntervalMs,
});
const relay = startOutboxRelay({ connectionString: config.databaseUrl, amqpUrl: config.amqpUrl, logger });

stopOnSignals(async () => {
  await server.shutdown(config.shutdownGraceMs);
  await sweeper.stop();
  await relay.stop();
  tickets.close();
  await database.close();
});
