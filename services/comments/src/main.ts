/**
 * The comment service process: config -> database + ticket-service client -> gRPC server -> outbox
 * relay, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the relay,
 * close the ticket client and the database). Migrations are applied by the launcher / a deploy job,
 * never by every replica at start.
 */
import {
  createServiceClient,
  loadConfigOrExit,
  startGrpcServer,
  startOutboxRelay,
  startTixProcess,
} from '@tix/kit';
import { loadConfig } from './config.js';
import { openDatabase } from './db.js';
import { createCommentService } from './server.js';

const config = loadConfigOrExit('comments', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('comments', config);
const database = openDatabase(config.databaseUrl, { logger, maxConnections: config.databasePoolSize });
const tickets = createServiceClient('tickets', config.ticketsAddress, {
  deadlineMs: config.serviceDeadlineMs,
  logger, // breaker state changes
});
const server = await startGrpcServer({
  host: config.grpcHost,
  port: config.grpcPort,
  services: [createCommentService({ pool: database.pool, tickets })],
  logger,
}).catch(async (error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  tickets.close();
  await database.close();
  process.exit(1);
});
const relay = startOutboxRelay({ connectionString: config.databaseUrl, amqpUrl: config.amqpUrl, logger });

stopOnSignals(async () => {
  await server.shutdown(config.shutdownGraceMs);
  await relay.stop();
  tickets.close();
  await database.close();
});
