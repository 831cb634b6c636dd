/**
 * The lookup service process: config -> database -> gRPC server -> outbox relay, and an orderly stop
 * on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the relay, close the database).
 * Migrations are applied by the launcher / a deploy job, never by every replica at start.
 */
import { loadConfigOrExit, startGrpcServer, startOutboxRelay, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { openDatabase } from './db.js';
import { createLookupService } from './server.js';

const config = loadConfigOrExit('lookup', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('lookup', config);
const database = openDatabase(config.databaseUrl, { logger, maxConnections: config.databasePoolSize });
const server = await startGrpcServer({
  host: config.grpcHost,
  port: config.grpcPort,
  services: [createLookupService({ prisma: database.prisma, logger })],
  logger,
}).catch(async (error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  await database.close();
  process.exit(1);
});
const relay = startOutboxRelay({ connectionString: config.databaseUrl, amqpUrl: config.amqpUrl, logger });

stopOnSignals(async () => {
  await server.shutdown(config.shutdownGraceMs);
  await relay.stop();
  await database.close();
});
