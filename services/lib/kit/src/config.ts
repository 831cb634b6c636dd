/**
 * Configuration from the environment, validated once at start. Each process declares its variables
 * as one zod object; a bad or missing value stops the process with a message naming every variable
 * at fault.
 */
import { z } from 'zod';
import { FLEET, SERVICE_NOT_DEPLOYED, type ServiceName } from '@tix/protos';
import { LOG_LEVELS } from './logger.js';

/** "host:port" or "[ipv6]:port". */
const ADDRESS = /^([^\s:[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$/;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses `env` with `schema`, or throws a ConfigError listing every invalid variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const value = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    return `  ${name}: ${issue.message}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`;
  });
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}

/** Reusable variable schemas, so every process spells the same variable the same way. */
export const env = {
  nodeEnv: z.enum(['development', 'test', 'production']).default('development'),
  logLevel: z.enum(LOG_LEVELS).default('info'),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  host: (fallback: string) => z.string().min(1).default(fallback),
  url: (fallback: string) => z.url().default(fallback),
  optionalUrl: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.url().optional()),
  /** "host:port" or "[ipv6]:port". */
  address: (fallback: string) => z.string().regex(ADDRESS, 'expected host:port').default(fallback),
  /** A peer service's <NAME>_SERVICE_ADDR: its address, or "none" when it is not deployed. */
  serviceAddress: (name: ServiceName) =>
    z
      .string()
      .default(`127.0.0.1:${FLEET[name].grpcPort}`)
      .refine(
        (value) => value === SERVICE_NOT_DEPLOYED || ADDRESS.test(value),
        `expected host:port, or "${SERVICE_NOT_DEPLOYED}" when the service is not deployed`,
      ),
  /** A comma-separated list, trimmed, empty items dropped. */
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
      ),
  boolean: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1' || value === 'yes'),
};

/** Default server URL of PostgreSQL (each service uses its own database on it). */
export const DEFAULT_DATABASE_SERVER_URL = 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';
/** Default RabbitMQ URL. */
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * The database URL of one service: `override` when given (e.g. TICKET_DATABASE_URL), otherwise the
 * server URL (DATABASE_URL) with its database name replaced by `databaseName`.
 */
export function serviceDatabaseUrl(serverUrl: string, databaseName: string, override?: string): string {
  if (override) return override;
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}
