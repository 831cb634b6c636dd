/**
 * The lookup service process: config -> database -> gRPC server -> outbox relay, and an orderly stop
 * on SIGTERM/SIGINT (health NOT_SERVING, drain calls, stop the relay, close the database).
 * Migrations are applied by the launcher / a deploy job, never by every replica at start.
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startLookupServer } from './server.js';

const config = loadConfigOrExit('lookup', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('lookup', config);
const service = await startLookupServer({
  databaseUrl: config.databaseUrl,
  host: config.grpcHost,
  port: config.grpcPort,
  logger,
  maxConnections: config.databasePoolSize,
  amqpUrl: config.amqpUrl,
}).catch((error: unknown) => {
  logger.fatal({ err: error, host: config.grpcHost, port: config.grpcPort }, 'cannot start the gRPC server');
  process.exit(1);
});
stopOnSignals(() => service.stop(config.shutdownGraceMs));
