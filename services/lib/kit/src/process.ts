/**
 * What every Tix process's main.ts does around its own wiring: load the config once (a bad one ends
 * the process with EX_CONFIG, naming the variable), start the logger and the /metrics endpoint, log
 * an uncaught exception with the work in flight and exit EX_SOFTWARE (crash.ts), and on
 * SIGTERM/SIGINT run the process's own stop once, then close /metrics (last, so scrapes still see
 * the drain) and exit 0, or 1 when stopping failed.
 */
import type { FleetProcessName } from '@tix/protos';
import { ConfigError } from './config.js';
import { exitOnUncaughtException } from './crash.js';
import { createLogger, type Logger, type LogLevel } from './logger.js';
import { startProcessMetrics } from './metrics.js';

/** The sysexits code for a configuration error: orchestrators show it as such. */
export const EX_CONFIG = 78;

/** `load()`'s config, or the process ends with EX_CONFIG and the config error on stderr. */
export function loadConfigOrExit<C>(name: FleetProcessName, load: () => C, exitCode = EX_CONFIG): C {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(exitCode);
  }
}

export interface ProcessSettings {
  logLevel: LogLevel;
  metricsHost: string;
  /** null: no /metrics endpoint. */
  metricsPort: number | null;
}

export interface TixProcess {
  logger: Logger;
  /** Runs `stop` on the first SIGTERM/SIGINT, then closes /metrics and exits (see the file header). */
  stopOnSignals: (stop: () => Promise<void>) => void;
}

/** Starts the logger and /metrics of process `name`. */
export async function startTixProcess(
  name: FleetProcessName,
  settings: ProcessSettings,
): Promise<TixProcess> {
  const logger = createLogger({ service: name, level: settings.logLevel });
  exitOnUncaughtException(logger);
  const metrics = await startProcessMetrics({
    service: name,
    host: settings.metricsHost,
    port: settings.metricsPort,
    logger,
  });
  return {
    logger,
    stopOnSignals: (stop) => {
      let stopping = false;
      const onSignal = async (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        try {
          await stop();
          await metrics?.close();
          logger.info('stopped');
          process.exit(0);
        } catch (error) {
          logger.error({ err: error }, 'unclean shutdown');
          process.exit(1);
        }
      };
      process.on('SIGTERM', (signal) => void onSignal(signal));
      process.on('SIGINT', (signal) => void onSignal(signal));
    },
  };
}
