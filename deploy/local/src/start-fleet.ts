/**
 * `pnpm start`: the whole fleet on this machine, in development mode. Ctrl-C stops everything; a
 * process that crashes is restarted by the launcher (with backoff, and an error line that says so).
 */
import { createLogger } from '@tix/kit';
import { SERVICE_NAMES } from '@tix/protos';
import { startFleet } from './launcher.js';

const logger = createLogger({ service: 'launcher', level: 'info' });

try {
  const fleet = await startFleet({ logger, pretty: process.stdout.isTTY });
  const missing = SERVICE_NAMES.filter((name) => !fleet.services.includes(name));
  process.stdout.write(
    [
      '',
      'Tix is running.',
      `  API (API keys):        ${fleet.apiUrl}/v1/projects`,
      `  App (browser session): ${fleet.appUrl}/api/csrf-token`,
      `  Readiness:             ${fleet.apiUrl}/readyz`,
      `  Services:              ${fleet.services.join(', ')}${missing.length ? ` (not built yet: ${missing.join(', ')})` : ''}`,
      '',
      'Next: pnpm tix seed --demo --json   (demo projects, users with passwords, API keys, tickets)',
      'Ctrl-C stops the fleet; a process that crashes is restarted (with backoff).',
      '',
    ].join('\n'),
  );

  let shuttingDown = false;
  const shutdown = (reason: string, code: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info(`${reason}: stopping the fleet`);
    fleet.stop().then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
} catch (error) {
  logger.error({ err: error }, (error as Error).message);
  process.exit(1);
}
