/**
 * The webhook service process: config -> the service (database, gRPC API, event consumer, delivery
 * workers, retention; server.ts) -> an orderly stop on SIGTERM/SIGINT: stop consuming, stop taking
 * calls, let attempts in flight finish within SHUTDOWN_GRACE_MS (unfinished deliveries stay pending
 * and resume on the next start or on another replica), close. The service emits no domain events, so
 * it has no outbox. Migrations are applied by the launcher / a deploy job, never by every replica.
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startWebhookServer } from './server.js';

const config = loadConfigOrExit('webhooks', loadConfig);
const { logger, stopOnSignals } = await startTixProcess('webhooks', config);
if (config.secretKey === null) {
  logger.warn('WEBHOOK_SECRET_KEY is not set: signing secrets are stored unencrypted (development only)');
}
const service = await startWebhookServer({
  databaseUrl: config.databaseUrl,
  amqpUrl: config.amqpUrl,
  host: config.grpcHost,
  port: config.grpcPort,
  logger,
  targetMode: config.targetMode,
  secretKey: config.secretKey,
  attemptTimeoutMs: config.attemptTimeoutMs,
  concurrency: config.concurrency,
  hostConcurrency: config.hostConcurrency,
  prefetch: config.prefetch,
  retentionDays: config.retentionDays,
  maxConnections: config.databasePoolSize,
}).catch((error: unknown) => {
  logger.fatal(
    { err: error, host: config.grpcHost, port: config.grpcPort },
    'cannot start the webhook service',
  );
  process.exit(1);
});
logger.info({ port: service.port, target_mode: config.targetMode }, 'webhook service started');

stopOnSignals(async () => {
  await service.stop(config.shutdownGraceMs);
});
