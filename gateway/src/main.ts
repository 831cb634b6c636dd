/**
 * The gateway process: config -> service clients, caches, session store, revocation feed -> one
 * express app per listener -> graceful shutdown on SIGTERM/SIGINT (exit 0). A bad configuration
 * stops the process at once with a message naming the variable (exit 78, EX_CONFIG, as every service).
 */
import { loadConfigOrExit, startTixProcess } from '@tix/kit';
import { loadConfig } from './config.js';
import { startGateway } from './gateway.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit('gateway', loadConfig);
  // /metrics on its own port: for Prometheus inside the cluster, never on the public listeners.
  const { logger, stopOnSignals } = await startTixProcess('gateway', config);
  const gateway = await startGateway(config, logger);
  stopOnSignals(() => gateway.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
