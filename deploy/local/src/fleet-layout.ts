/** Where things are in the repository, and which services of the fleet exist in this checkout. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES, type ServiceName } from '@tix/protos';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function serviceDir(name: ServiceName): string {
  return path.join(REPO_ROOT, 'services', name);
}

/** The services whose code exists here (a later issue may not have built one yet). */
export function builtServices(): ServiceName[] {
  return SERVICE_NAMES.filter((name) => existsSync(path.join(serviceDir(name), 'src/main.ts')));
}

/** The Prisma migrations folder of a service, if it has one. */
export function migrationsDir(name: ServiceName): string | undefined {
  const dir = path.join(serviceDir(name), 'prisma/migrations');
  return existsSync(dir) ? dir : undefined;
}
