import { pino, type Logger as PinoLogger, type LevelWithSilent } from 'pino';

export type Logger = PinoLogger;
export const LOG_LEVELS = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
] as const satisfies readonly LevelWithSilent[];
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Paths never written to logs, wherever they appear in a log object. */
const REDACT_PATHS = [
  'authorization',
  'cookie',
  'password',
  'key',
  'secret',
  'token',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.key',
  '*.secret',
  '*.token',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
];

/** Creates the root JSON logger of a process; every line carries `service`. */
export function createLogger(options: { service: string; level?: LogLevel }): Logger {
  return pino({
    level: options.level ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}
