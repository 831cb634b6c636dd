/**
 * The attachment service process: config -> object store (bucket created when missing, waiting for
 * the store up to S3_STARTUP_TIMEOUT_MS) -> database + ticket client -> gRPC server -> sweeper and
 * outbox relay, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the
 * sweeper and the relay, close the client and the database). Migrations are applied by the launcher
 * / a deploy job, never by every replica at start.
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startAttachmentServer } from './server.js';

const config = loadConfigOrExit('attachments', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('attachments', config);
const service = await startAttachmentServer({
  databaseUrl: config.databaseUrl,
  ticketsAddress: config.ticketsAddress,
  store: config.store,
  uploads: config.uploads,
  host: config.grpcHost,
  port: config.grpcPort,
  logger,
  maxConnections: config.databasePoolSize,
  ticketsDeadlineMs: config.serviceDeadlineMs,
  storeStartupTimeoutMs: config.storeStartupTimeoutMs,
  sweepIntervalMs: config.sweepIntervalMs,
  amqpUrl: config.amqpUrl,
}).catch((error: unknown) => {
  logger.fatal(
    { err: error, host: config.grpcHost, port: config.grpcPort, endpoint: config.store.endpoint },
    'cannot start the attachment service',
  );
  process.exit(1);
});
stopOnSignals(() => service.stop(config.shutdownGraceMs));
