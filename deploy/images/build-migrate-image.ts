/**
 * Assembles the root folder of the migration image (the Dockerfile's `migrate` target copies it to
 * /migrate):
 *   node --import tsx deploy/images/build-migrate-image.ts <outDir>
 * Layout: migrate.mjs (entrypoint), node_modules/ (the Prisma CLI pinned by the lockfile and what it
 * needs, nothing else), services/<name>/{prisma/schema.prisma, prisma/migrations}
 * for every service that has migrations, with a generated prisma.config.mjs. The Dockerfile then downloads Prisma's schema engine for the
 * image's platform (it cannot be downloaded on the build machines here).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { serviceDatabaseVariable, type ServiceName } from '../../protos/src/fleet.js';
import { listDeployables, PRISMA_CONFIG_FILE, REPO_ROOT } from './deployables.js';
import {
  dependencyClosure,
  folderSize,
  removeBuildOnlyFiles,
  removeUnreachablePackages,
} from './runtime-dependencies.js';

export interface MigrateImageReport {
  migrateDir: string;
  /** Services whose migrations the image carries. */
  services: string[];
  prismaVersion: string;
  bytes: number;
}

interface PackageManifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The Prisma config the image uses for one service: its schema, its migrations, and its own database
 * from <SERVICE>_DATABASE_URL (the same for every service, whether or not the service keeps a
 * prisma.config.ts of its own; migrate.mjs sets the variable).
 */
export function prismaConfigFor(databaseVariable: string): string {
  return [
    '// Written by deploy/images/build-migrate-image.ts: how `prisma migrate deploy` finds this service.',
    "import { defineConfig } from 'prisma/config';",
    '',
    'export default defineConfig({',
    "  schema: 'prisma/schema.prisma',",
    "  migrations: { path: 'prisma/migrations' },",
    `  datasource: { url: process.env.${databaseVariable} },`,
    '});',
    '',
  ].join('\n');
}

/** The workspace package whose (dev)dependencies pin the Prisma CLI; throws when pins disagree. */
function prismaCliSource(root: string): { packageName: string; pin: string } {
  const pins = new Map<string, string>();
  for (const deployable of listDeployables(root)) {
    if (!deployable.packageName) continue;
    const manifest = JSON.parse(
      readFileSync(path.join(root, deployable.dir, 'package.json'), 'utf8'),
    ) as PackageManifest;
    const pin = manifest.devDependencies?.prisma ?? manifest.dependencies?.prisma;
    if (pin) pins.set(manifest.name, pin);
  }
  const distinct = new Set(pins.values());
  if (distinct.size === 0) throw new Error('no workspace package depends on the Prisma CLI (prisma)');
  if (distinct.size > 1)
    throw new Error(`packages pin different Prisma CLI versions: ${[...pins].join(', ')}`);
  const [packageName, pin] = [...pins][0]!;
  return { packageName, pin };
}

/**
 * Builds the migration image root into `migrateDir` (emptied first) from the installed workspace at
 * `root`. Throws when no service has migrations, or when packages pin different Prisma versions.
 */
export async function buildMigrateImage(migrateDir: string, root = REPO_ROOT): Promise<MigrateImageReport> {
  const services = listDeployables(root).filter(
    (deployable) => deployable.name !== 'gateway' && deployable.migrationsDir,
  );
  if (services.length === 0) throw new Error('no service has migrations yet');
  const cli = prismaCliSource(root);

  rmSync(migrateDir, { recursive: true, force: true });
  mkdirSync(migrateDir, { recursive: true });
  for (const service of services) {
    const target = path.join(migrateDir, service.dir);
    mkdirSync(path.join(target, 'prisma'), { recursive: true });
    cpSync(path.join(root, service.dir, 'prisma/schema.prisma'), path.join(target, 'prisma/schema.prisma'));
    cpSync(path.join(root, service.migrationsDir!), path.join(target, 'prisma/migrations'), {
      recursive: true,
    });
    writeFileSync(
      path.join(target, PRISMA_CONFIG_FILE),
      prismaConfigFor(serviceDatabaseVariable(service.name as ServiceName)),
    );
  }

  // The CLI comes from a package that pins it, so its version and every dependency's version come
  // from the lockfile; then everything but the CLI's own closure is removed.
  const staging = `${migrateDir}.dependencies`;
  rmSync(staging, { recursive: true, force: true });
  execFileSync(
    'pnpm',
    [
      '--filter',
      cli.packageName,
      'deploy',
      '--offline',
      '--config.inject-workspace-packages=true',
      '--config.node-linker=hoisted',
      staging,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  renameSync(path.join(staging, 'node_modules'), path.join(migrateDir, 'node_modules'));
  rmSync(staging, { recursive: true, force: true });
  const kept = dependencyClosure(migrateDir, ['prisma']);
  removeUnreachablePackages(path.join(migrateDir, 'node_modules'), new Set(kept.keys()));
  removeBuildOnlyFiles(path.join(migrateDir, 'node_modules'));

  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { migrate: 'deploy/images/migrate.ts' },
    outdir: migrateDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'silent',
  });

  // `prisma validate` loads each config and schema without the native engine (which the
  // Dockerfile downloads later): a broken config fails the build here, not the release Job.
  for (const service of services) {
    const validation = spawnSync(
      process.execPath,
      [
        path.join(migrateDir, 'node_modules/prisma/build/index.js'),
        'validate',
        '--config',
        PRISMA_CONFIG_FILE,
      ],
      {
        cwd: path.join(migrateDir, service.dir),
        encoding: 'utf8',
        env: {
          ...process.env,
          PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
          CHECKPOINT_DISABLE: '1',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
          [serviceDatabaseVariable(service.name as ServiceName)]: 'postgresql://validate@localhost/validate',
        },
      },
    );
    if (validation.status !== 0) {
      throw new Error(`${service.name}: prisma validate failed:\n${validation.stdout}${validation.stderr}`);
    }
  }

  const prismaManifest = JSON.parse(
    readFileSync(path.join(migrateDir, 'node_modules/prisma/package.json'), 'utf8'),
  ) as { version: string };
  return {
    migrateDir,
    services: services.map((service) => service.name),
    prismaVersion: prismaManifest.version,
    bytes: folderSize(migrateDir),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [outDir] = process.argv.slice(2);
  try {
    if (!outDir) throw new Error('usage: build-migrate-image.ts <outDir>');
    const report = await buildMigrateImage(path.resolve(outDir));
    process.stderr.write(
      `migrate: prisma ${report.prismaVersion}; migrations of ${report.services.join(', ')}; ` +
        `${(report.bytes / 1024 / 1024).toFixed(1)} MB in ${report.migrateDir}\n`,
    );
  } catch (error) {
    process.stderr.write(`build-migrate-image: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
