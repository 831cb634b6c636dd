/**
 * The migration image's entrypoint, one run per service and release (the Kubernetes Job and the
 * compose `migrate-*` services): `node /migrate/migrate.mjs <service>` runs
 * `prisma migrate deploy --config services/<service>/prisma.config.mjs` against the service's own
 * database, or exits 0 saying there is nothing to migrate when the image holds no migrations for it
 * (a service still being written). The config reads <SERVICE>_DATABASE_URL; when only the
 * server URL DATABASE_URL is set, the service's database URL is derived from it as the services do.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLEET, SERVICE_NAMES, serviceDatabaseVariable, type ServiceName } from '../../protos/src/fleet.js';
import { hasMigrations, PRISMA_CONFIG_FILE } from './deployables.js';

/** The folder holding migrate.mjs, node_modules/prisma and services/<name>/prisma. */
const MIGRATE_ROOT = path.dirname(fileURLToPath(import.meta.url));

/** The environment `prisma migrate deploy` needs for `name`: <NAME>_DATABASE_URL set. */
export function migrationEnvironment(name: ServiceName, environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const variable = serviceDatabaseVariable(name);
  if (environment[variable]) return environment;
  if (!environment.DATABASE_URL) {
    throw new Error(`set ${variable} (the service's database) or DATABASE_URL (the PostgreSQL server)`);
  }
  const url = new URL(environment.DATABASE_URL);
  url.pathname = `/${FLEET[name].database}`;
  return { ...environment, [variable]: url.toString() };
}

function main(): number {
  const name = process.argv[2] ?? '';
  if (!(SERVICE_NAMES as string[]).includes(name)) {
    process.stderr.write(`usage: migrate.mjs ${SERVICE_NAMES.join('|')}\n`);
    return 64; // EX_USAGE
  }
  const service = name as ServiceName;
  const config = path.join(MIGRATE_ROOT, 'services', service, PRISMA_CONFIG_FILE);
  if (
    !existsSync(config) ||
    !hasMigrations(path.join(MIGRATE_ROOT, 'services', service, 'prisma/migrations'))
  ) {
    process.stdout.write(`${service}: this image holds no migrations for it; nothing to do\n`);
    return 0;
  }
  let environment: NodeJS.ProcessEnv;
  try {
    environment = migrationEnvironment(service, process.env);
  } catch (error) {
    process.stderr.write(`${service}: ${(error as Error).message}\n`);
    return 78; // EX_CONFIG
  }
  const prisma = path.join(MIGRATE_ROOT, 'node_modules/prisma/build/index.js');
  const result = spawnSync(process.execPath, [prisma, 'migrate', 'deploy', '--config', config], {
    cwd: path.dirname(config),
    env: environment,
    stdio: 'inherit',
  });
  return result.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exit(main());
