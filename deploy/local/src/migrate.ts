/**
 * Creates every built service's database if it is missing and applies its migrations
 * (`pnpm db:migrate`; `pnpm start` does the same first).
 */
import { pathToFileURL } from 'node:url';
import {
  applyMigrations,
  createLogger,
  DEFAULT_DATABASE_SERVER_URL,
  ensureDatabase,
  serviceDatabaseUrl,
  type Logger,
} from '@tix/kit';
import { FLEET, serviceDatabaseVariable, type ServiceName } from '@tix/protos';
import { builtServices, migrationsDir } from './fleet-layout.js';

/** The database URL of each built service, from DATABASE_URL / <NAME>_DATABASE_URL in `env`. */
export function serviceDatabaseUrls(
  env: NodeJS.ProcessEnv,
  databasePrefix = '',
): Partial<Record<ServiceName, string>> {
  const server = env.DATABASE_URL || DEFAULT_DATABASE_SERVER_URL;
  return Object.fromEntries(
    builtServices()
      .filter((name) => migrationsDir(name))
      .map((name) => [
        name,
        serviceDatabaseUrl(
          server,
          `${databasePrefix}${FLEET[name].database}`,
          env[serviceDatabaseVariable(name)],
        ),
      ]),
  );
}

/** Ensures each database exists and is migrated; returns what was applied per service. */
export async function migrateAll(
  databaseUrls: Partial<Record<ServiceName, string>>,
  logger: Logger,
): Promise<void> {
  for (const [name, url] of Object.entries(databaseUrls) as [ServiceName, string][]) {
    const created = await ensureDatabase(url);
    const { applied } = await applyMigrations({
      connectionString: url,
      migrationsDir: migrationsDir(name)!,
      logger: logger.child({ migrating: name }),
    });
    logger.info(
      { service: name, created_database: created, applied: applied.length },
      `${name}: database ready`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const logger = createLogger({ service: 'migrate', level: 'info' });
  migrateAll(serviceDatabaseUrls(process.env), logger).catch((error: unknown) => {
    logger.error({ err: error }, 'migration failed');
    process.exit(1);
  });
}
