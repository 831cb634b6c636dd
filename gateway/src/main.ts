/**
 * The gateway process: config -> service clients, caches, session store, revocation feed -> one
 * express app per listener -> graceful shutdown on SIGTERM/SIGINT (exit 0). A bad configuration
 * stops the process at once with a message naming the variable (exit 1).
 */
import { ConfigError, createLogger, startProcessMetrics } from '@tix/kit';
import { loadConfig } from './config.js';
import { startGateway } from './gateway.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`gateway: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  // On its own port: /metrics is for Prometheus inside the cluster, never on the public listeners.
  const metrics = await startProcessMetrics({
    service: 'gateway',
    host: config.metricsHost,
    port: config.metricsPort,
    logger,
  });
  const gateway = await startGateway(config, logger);

  const shutdown = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutdown requested');
    gateway
      .stop()
      // Last: scrapes still see the drain.
      .then(() => metrics?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
