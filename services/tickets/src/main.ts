/**
 * The ticket service process: config -> database + lookup client -> gRPC server -> outbox relay and
 * idempotency sweep, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop
 * the relay and the sweep, close the lookup client and the database). Migrations are applied by the launcher / a deploy job, never by
 * every replica at start.
 */
import {
  ConfigError,
  createLogger,
  createServiceClient,
  startGrpcServer,
  startOutboxRelay,
  startProcessMetrics,
} from '@tix/kit';
import { loadConfig, type TicketsConfig } from './config.js';
import { openDatabase } from './db.js';
import { createTicketService } from './server.js';
import { startIdempotencySweep } from './tickets/idempotency-sweep.js';

let config: TicketsConfig;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`tickets: ${error.message}`);
  process.exit(78); // EX_CONFIG
}

const logger = createLogger({ service: 'tickets', level: config.logLevel });
const metrics = await startProcessMetrics({
  service: 'tickets',
  host: config.metricsHost,
  port: config.metricsPort,
  logger,
});
const database = openDatabase(config.databaseUrl, { logger, maxConnections: config.databasePoolSize });
const lookup = createServiceClient('lookup', config.lookupAddress, {
  deadlineMs: config.serviceDeadlineMs,
  logger, // breaker state changes
});
const server = await startGrpcServer({
  host: config.grpcHost,
  port: config.grpcPort,
  services: [createTicketService({ pool: database.pool, lookup, cacheTtls: config.cacheTtls })],
  logger,
}).catch(async (error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  lookup.close();
  await database.close();
  process.exit(1);
});
const relay = startOutboxRelay({ connectionString: config.databaseUrl, amqpUrl: config.amqpUrl, logger });
const idempotencySweep = startIdempotencySweep({ pool: database.pool, logger });

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await server.shutdown(config.shutdownGraceMs);
    await relay.stop();
    await idempotencySweep.stop();
    lookup.close();
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
