/**
 * Assembles the root folder of one deployable's production image; the Dockerfile's build stage runs
 * it and copies the result to /app of the runtime image:
 *   node --import tsx deploy/images/build-service-image.ts <gateway|lookup|tickets|...> <outDir>
 * Layout: dist/main.mjs (the process), dist/healthcheck.mjs, dist/cli.mjs (lookup: the admin CLI),
 * tix/**.proto (PROTO_ROOT is dist/..), node_modules/ (only what the bundle imports); for the gateway
 * also console/ (the agent console's build, gateway/web/dist, without source maps).
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleDeployable, type ExternalImport } from './bundle.js';
import { describeDeployable, parseDeployableName, REPO_ROOT, type DeployableName } from './deployables.js';
import {
  compareResolutions,
  dependencyClosure,
  deployProductionDependencies,
  folderSize,
  loadExternalsInChild,
  removeBuildOnlyFiles,
  removeUnreachablePackages,
} from './runtime-dependencies.js';

export const HEALTHCHECK_ENTRY = 'deploy/images/healthcheck.ts';

/**
 * Copies the .proto files of the checkout at `root` (protos/tix/**) to `<appDir>/tix`, folders
 * included, nothing else; returns the copied files relative to `<appDir>/tix`. Only the part of a
 * path below protos/tix is looked at: the checkout's own path may hold dots and spaces (/home/j.doe).
 */
export function copyProtos(root: string, appDir: string): string[] {
  const source = path.join(root, 'protos/tix');
  const copied: string[] = [];
  cpSync(source, path.join(appDir, 'tix'), {
    recursive: true,
    filter: (file) => {
      const relative = path.relative(source, file);
      if (statSync(file).isDirectory()) return true;
      if (path.extname(relative) !== '.proto') return false;
      copied.push(relative);
      return true;
    },
  });
  return copied.sort();
}

/** Where the console's build is in a checkout, and where the gateway looks for it in the image. */
export const CONSOLE_BUILD_DIR = 'gateway/web/dist';
export const CONSOLE_IMAGE_DIR = 'console';

/**
 * Copies the console's build of the checkout at `root` to `<appDir>/console` (gateway/src/console/
 * serve-console.ts finds it there), leaving out source maps; returns the copied files. Throws when the
 * build is missing: an image without its console would answer 503 on every page.
 */
export function copyConsole(root: string, appDir: string): string[] {
  const source = path.join(root, CONSOLE_BUILD_DIR);
  if (!existsSync(path.join(source, 'index.html'))) {
    throw new Error(
      `${CONSOLE_BUILD_DIR}/index.html is missing: run \`pnpm install\` (it builds the console)`,
    );
  }
  const copied: string[] = [];
  cpSync(source, path.join(appDir, CONSOLE_IMAGE_DIR), {
    recursive: true,
    filter: (file) => {
      if (statSync(file).isDirectory()) return true;
      if (file.endsWith('.map')) return false;
      copied.push(path.relative(source, file));
      return true;
    },
  });
  return copied.sort();
}

export interface ServiceImageReport {
  deployable: DeployableName;
  appDir: string;
  /** Bundles written to dist/. */
  outputs: string[];
  externals: ExternalImport[];
  /** name@version of every npm package left in node_modules. */
  packages: string[];
  bytes: number;
}

/**
 * Builds the image root of `name` into `appDir` (emptied first) from the workspace at `root`, which
 * must be installed (`pnpm install`, so generated code and the pnpm store exist). Throws when the
 * deployable is not built yet, a bundled module needs files the image lacks, or an external import
 * does not load from the pruned node_modules.
 */
export async function buildServiceImage(
  name: DeployableName,
  appDir: string,
  root = REPO_ROOT,
): Promise<ServiceImageReport> {
  const deployable = describeDeployable(name, root);
  if (!deployable.packageName || !deployable.built) {
    throw new Error(
      `${name}: ${deployable.dir}/src/main.ts does not exist yet, so there is nothing to build`,
    );
  }
  rmSync(appDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });

  const bundle = await bundleDeployable(
    root,
    { ...deployable, entries: { ...deployable.entries, healthcheck: HEALTHCHECK_ENTRY } },
    path.join(appDir, 'dist'),
  );
  copyProtos(root, appDir);
  if (name === 'gateway') copyConsole(root, appDir);

  // pnpm deploy wants an empty target; a sibling folder keeps the final rename on one filesystem.
  const staging = `${appDir}.dependencies`;
  rmSync(staging, { recursive: true, force: true });
  deployProductionDependencies(root, deployable.packageName, staging);
  renameSync(path.join(staging, 'node_modules'), path.join(appDir, 'node_modules'));
  rmSync(staging, { recursive: true, force: true });

  const kept = dependencyClosure(appDir, [
    ...new Set(bundle.externals.map((external) => external.packageName)),
  ]);
  removeUnreachablePackages(path.join(appDir, 'node_modules'), new Set(kept.keys()));
  removeBuildOnlyFiles(path.join(appDir, 'node_modules'));

  const problems = compareResolutions(root, appDir, bundle.externals);
  if (problems.length > 0)
    throw new Error(`${name}: runtime dependencies differ:\n  ${problems.join('\n  ')}`);
  loadExternalsInChild(appDir, bundle.externals);

  return {
    deployable: name,
    appDir,
    outputs: bundle.outputs,
    externals: bundle.externals,
    packages: [...kept.values()].sort(),
    bytes: folderSize(appDir),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [name, outDir] = process.argv.slice(2);
  try {
    if (!outDir) throw new Error('usage: build-service-image.ts <deployable> <outDir>');
    const report = await buildServiceImage(parseDeployableName(name), path.resolve(outDir));
    const megabytes = (report.bytes / 1024 / 1024).toFixed(1);
    process.stderr.write(
      `${report.deployable}: ${report.outputs.filter((file) => file.endsWith('.mjs')).join(', ')}; ` +
        `${report.packages.length} npm packages; ${megabytes} MB in ${report.appDir}\n`,
    );
    if (!existsSync(path.join(report.appDir, 'dist/main.mjs'))) throw new Error('dist/main.mjs is missing');
  } catch (error) {
    process.stderr.write(`build-service-image: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
