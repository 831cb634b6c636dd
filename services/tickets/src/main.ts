/**
 * The ticket service process: config -> database + lookup client -> gRPC server -> outbox relay and
 * idempotency sweep, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop
 * the relay and the sweep, close the lookup client and the database). Migrations are applied by the
 * launcher / a deploy job, never by every replica at start.
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startTicketServer } from './server.js';

const config = loadConfigOrExit('tickets', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('tickets', config);
const service = await startTicketServer({
  databaseUrl: config.databaseUrl,
  lookupAddress: config.lookupAddress,
  host: config.grpcHost,
  port: config.grpcPort,
  logger,
  maxConnections: config.databasePoolSize,
  lookupDeadlineMs: config.serviceDeadlineMs,
  cacheTtls: config.cacheTtls,
  amqpUrl: config.amqpUrl,
}).catch((error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  process.exit(1);
});
stopOnSignals(() => service.stop(config.shutdownGraceMs));
