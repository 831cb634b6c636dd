/**
 * The webhook service process: config -> the service (database, gRPC API, event consumer, delivery
 * workers, retention; server.ts) -> an orderly stop on SIGTERM/SIGINT: stop consuming, stop taking
 * calls, let attempts in flight finish within SHUTDOWN_GRACE_MS (unfinished deliveries stay pending
 * and resume on the next start or on another replica), close. The service emits no domain events, so
 * it has no outbox. Migrations are applied by the launcher / a deploy job, never by every replica.
 */
import { ConfigError, createLogger, startProcessMetrics } from '@tix/kit';
import { loadConfig, type WebhooksConfig } from './config.js';
import { startWebhookServer } from './server.js';

let config: WebhooksConfig;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`webhooks: ${error.message}`);
  process.exit(78); // EX_CONFIG
}

const logger = createLogger({ service: 'webhooks', level: config.logLevel });
const metrics = await startProcessMetrics({
  service: 'webhooks',
  host: config.metricsHost,
  port: config.metricsPort,
  logger,
});
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

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await service.stop(config.shutdownGraceMs);
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
