/**
 * The ticket service process: config -> database + lookup client -> gRPC server -> outbox relay and
 * idempotency sweep, and an orderly stop on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop
 * the relay and the sweep, close the lookup client and the database). Migrations are applied by the launcher / a deploy job, never by
 * every replica at start.
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
import { createTicketService } from './server.js';
import { startIdempotencySweep } from './tickets/idempotency-sweep.js';

const config = loadConfigOrExit('tickets', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('tickets', config);
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

stopOnSignals(async () => {
  await server.shutdown(config.shutdownGraceMs);
  await relay.stop();
  await idempotencySweep.stop();
  lookup.close();
  await database.close();
});
