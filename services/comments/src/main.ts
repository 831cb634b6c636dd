/**
 * The comment service process: config -> database + ticket-service client -> gRPC server -> outbox
 * relay, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the relay,
 * close the ticket client and the database). Migrations are applied by the launcher / a deploy job,
 * never by every replica at start.
 */
import {
  ConfigError,
  createLogger,
  createServiceClient,
  startGrpcServer,
  startOutboxRelay,
  startProcessMetrics,
} from '@tix/kit';
import { loadConfig, type CommentsConfig } from './config.js';
import { openDatabase } from './db.js';
import { createCommentService } from './server.js';

let config: CommentsConfig;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`comments: ${error.message}`);
  process.exit(78); // EX_CONFIG
}

const logger = createLogger({ service: 'comments', level: config.logLevel });
const metrics = await startProcessMetrics({
  service: 'comments',
  host: config.metricsHost,
  port: config.metricsPort,
  logger,
});
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

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await server.shutdown(config.shutdownGraceMs);
    await relay.stop();
    tickets.close();
    await database.close();
    // Last: scrapes still see the drain.
    await metrics?.close();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));
