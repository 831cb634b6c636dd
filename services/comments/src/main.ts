/**
 * The comment service process: config -> database + ticket-service client -> gRPC server -> outbox
 * relay, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the relay,
 * close the ticket client and the database). Migrations are applied by the launcher / a deploy job,
 * never by every replica at start.
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startCommentServer } from './server.js';

const config = loadConfigOrExit('comments', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('comments', config);
const service = await startCommentServer({
  databaseUrl: config.databaseUrl,
  ticketsAddress: config.ticketsAddress,
  host: config.grpcHost,
  port: config.grpcPort,
  logger,
  maxConnections: config.databasePoolSize,
  ticketsDeadlineMs: config.serviceDeadlineMs,
  amqpUrl: config.amqpUrl,
}).catch((error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  process.exit(1);
});
stopOnSignals(() => service.stop(config.shutdownGraceMs));
