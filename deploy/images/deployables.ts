/**
 * What can be built into an image: the gateway and the services of the fleet map. A service
 * whose folder has no `src/main.ts` yet is listed but not buildable, so images, compose and the
 * manifests can describe the whole fleet while it is still being written.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// A relative import: these scripts run from the workspace root, which does not depend on @tix/protos.
import { FLEET, GATEWAY_DEFAULT_PORTS, SERVICE_NAMES, type ServiceName } from '../../protos/src/fleet.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type DeployableName = 'gateway' | ServiceName;

export const DEPLOYABLE_NAMES: readonly DeployableName[] = ['gateway', ...SERVICE_NAMES];

export interface Deployable {
  name: DeployableName;
  /** Folder relative to the repository root. */
  dir: string;
  /** The workspace package name (from its package.json), or undefined when the folder is missing. */
  packageName: string | undefined;
  /** Bundle name -> entry file (relative to the repository root); `main` is the process. */
  entries: Record<string, string>;
  /** True when `src/main.ts` exists, i.e. there is a process to build. */
  built: boolean;
  /** Ports the process listens on by default (gRPC port, or the gateway's API and app ports). */
  defaultPorts: number[];
  /** The Prisma migrations folder (relative), when it holds at least one migration. */
  migrationsDir: string | undefined;
}

/** True when a Prisma migrations folder holds at least one `<name>/migration.sql`. */
export function hasMigrations(migrationsDir: string): boolean {
  if (!existsSync(migrationsDir)) return false;
  return readdirSync(migrationsDir, { withFileTypes: true }).some(
    (entry) => entry.isDirectory() && existsSync(path.join(migrationsDir, entry.name, 'migration.sql')),
  );
}

/** Describes one deployable as it exists in the checkout at `root`. */
export function describeDeployable(name: DeployableName, root = REPO_ROOT): Deployable {
  const dir = name === 'gateway' ? 'gateway' : `services/${name}`;
  const packageFile = path.join(root, dir, 'package.json');
  const packageName = existsSync(packageFile)
    ? (JSON.parse(readFileSync(packageFile, 'utf8')) as { name: string }).name
    : undefined;
  const entries: Record<string, string> = {};
  if (existsSync(path.join(root, dir, 'src/main.ts'))) entries.main = `${dir}/src/main.ts`;
  // The admin CLI ships in the image of the service it talks to (kubectl exec ... dist/cli.mjs).
  if (existsSync(path.join(root, dir, 'src/cli/main.ts'))) entries.cli = `${dir}/src/cli/main.ts`;
  const migrationsDir = `${dir}/prisma/migrations`;
  return {
    name,
    dir,
    packageName,
    entries,
    built: entries.main !== undefined,
    defaultPorts:
      name === 'gateway' ? [GATEWAY_DEFAULT_PORTS.api, GATEWAY_DEFAULT_PORTS.app] : [FLEET[name].grpcPort],
    migrationsDir: hasMigrations(path.join(root, migrationsDir)) ? migrationsDir : undefined,
  };
}

/** Every deployable of the fleet, built or not. */
export function listDeployables(root = REPO_ROOT): Deployable[] {
  return DEPLOYABLE_NAMES.map((name) => describeDeployable(name, root));
}

/** Narrows a command-line argument to a deployable name, or throws a message listing the choices. */
export function parseDeployableName(value: string | undefined): DeployableName {
  if (value && (DEPLOYABLE_NAMES as readonly string[]).includes(value)) return value as DeployableName;
  throw new Error(`expected one of ${DEPLOYABLE_NAMES.join(', ')}; got ${JSON.stringify(value ?? '')}`);
}

/** The Prisma config file the migration image writes for each service (build-migrate-image.ts). */
export const PRISMA_CONFIG_FILE = 'prisma.config.mjs';
