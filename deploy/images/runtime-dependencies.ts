/**
 * The npm packages a bundle imports, installed next to it and nothing else. `pnpm deploy --prod`
 * installs the deployable's production dependencies from the workspace lockfile (flat, hoisted
 * layout, so a bundle at <app>/dist resolves every package from <app>/node_modules); then everything
 * the bundle cannot reach is removed: the copied workspace sources (already bundled), type
 * declarations and source maps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ExternalImport } from './bundle.js';

interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function readManifest(packageDir: string): PackageManifest {
  return JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as PackageManifest;
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The folder Node would load package `name` from when imported in `fromDir`, looking no higher than
 * `boundary` (so a package missing from an image folder is never found in a parent folder).
 */
export function resolvePackageDir(fromDir: string, name: string, boundary: string): string | undefined {
  let dir = fromDir;
  while (isInside(dir, boundary)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/**
 * Every installed package reachable from `roots` through dependencies, optional dependencies and
 * required peer dependencies (optional peers are left out: they are tools the runtime does not load).
 * Returns real folder -> "name@version". Throws when a required package is not installed.
 */
export function dependencyClosure(appDir: string, roots: string[]): Map<string, string> {
  const kept = new Map<string, string>();
  const queue: { from: string; name: string; optional: boolean; neededBy: string }[] = roots.map((name) => ({
    from: appDir,
    name,
    optional: false,
    neededBy: 'the bundle',
  }));
  for (let item = queue.shift(); item; item = queue.shift()) {
    const dir = resolvePackageDir(item.from, item.name, appDir);
    if (!dir) {
      if (item.optional) continue;
      throw new Error(`${item.name} (needed by ${item.neededBy}) is not installed under ${appDir}`);
    }
    if (kept.has(dir)) continue;
    const manifest = readManifest(dir);
    const id = `${manifest.name}@${manifest.version}`;
    kept.set(dir, id);
    const add = (names: Record<string, string> | undefined, optional: (name: string) => boolean) => {
      for (const name of Object.keys(names ?? {})) {
        // Type declarations (protobufjs lists @types/node) are never loaded at run time.
        if (name.startsWith('@types/')) continue;
        queue.push({ from: dir, name, optional: optional(name), neededBy: id });
      }
    };
    add(manifest.dependencies, () => false);
    add(manifest.optionalDependencies, () => true);
    add(
      Object.fromEntries(
        Object.entries(manifest.peerDependencies ?? {}).filter(
          ([name]) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
        ),
      ),
      () => false,
    );
  }
  return kept;
}

/** Package folders directly inside a node_modules folder (scoped ones included). */
function packageFolders(nodeModulesDir: string): string[] {
  const folders: string[] = [];
  for (const entry of readdirSync(nodeModulesDir)) {
    const full = path.join(nodeModulesDir, entry);
    if (entry.startsWith('@')) {
      for (const scoped of readdirSync(full)) folders.push(path.join(full, scoped));
    } else {
      folders.push(full);
    }
  }
  return folders;
}

/**
 * Removes from `nodeModulesDir` (recursively into kept packages' own node_modules) every package not
 * in `kept`, and pnpm's bookkeeping (.bin, .pnpm, .modules.yaml). Returns the removed folders.
 */
export function removeUnreachablePackages(nodeModulesDir: string, kept: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const entry of readdirSync(nodeModulesDir)) {
    if (entry.startsWith('.')) {
      rmSync(path.join(nodeModulesDir, entry), { recursive: true, force: true });
      removed.push(path.join(nodeModulesDir, entry));
    }
  }
  for (const folder of packageFolders(nodeModulesDir)) {
    const real = realpathSync(folder);
    const keepsSomething = [...kept].some((dir) => isInside(dir, real));
    if (!keepsSomething) {
      rmSync(folder, { recursive: true, force: true });
      removed.push(folder);
      continue;
    }
    const nested = path.join(folder, 'node_modules');
    if (existsSync(nested)) removed.push(...removeUnreachablePackages(nested, kept));
  }
  for (const scope of readdirSync(nodeModulesDir).filter((entry) => entry.startsWith('@'))) {
    const scopeDir = path.join(nodeModulesDir, scope);
    if (readdirSync(scopeDir).length === 0) rmSync(scopeDir, { recursive: true });
  }
  return removed;
}

/** Type declarations and source maps: never loaded by a running process. */
const NOT_NEEDED_AT_RUN_TIME = /(\.d\.[cm]?ts|\.map)$/;

/** Deletes files under `dir` that match NOT_NEEDED_AT_RUN_TIME; returns how many. */
export function removeBuildOnlyFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) count += removeBuildOnlyFiles(full);
    else if (NOT_NEEDED_AT_RUN_TIME.test(entry.name)) {
      rmSync(full);
      count += 1;
    }
  }
  return count;
}

/**
 * Checks that each external import resolves, from the bundle's folder, to the same package version
 * the importing workspace package resolves in the workspace (a hoisting clash would silently swap
 * versions). Returns one message per problem.
 */
export function compareResolutions(root: string, appDir: string, externals: ExternalImport[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const external of externals) {
    const key = `${external.importer}\0${external.packageName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const inWorkspace = resolvePackageDir(
      path.dirname(path.join(root, external.importer)),
      external.packageName,
      root,
    );
    const inImage = resolvePackageDir(path.join(appDir, 'dist'), external.packageName, appDir);
    if (!inImage) {
      problems.push(
        `${external.packageName} (imported by ${external.importer}) is not installed in the image`,
      );
      continue;
    }
    if (!inWorkspace) {
      problems.push(
        `${external.packageName} (imported by ${external.importer}) does not resolve in the workspace`,
      );
      continue;
    }
    const workspaceVersion = readManifest(inWorkspace).version;
    const imageVersion = readManifest(inImage).version;
    if (workspaceVersion !== imageVersion) {
      problems.push(
        `${external.packageName}: ${external.importer} uses ${workspaceVersion} in the workspace, the image has ${imageVersion}`,
      );
    }
  }
  return problems;
}

/**
 * Loads every external import from the image folder in a child Node process (so nothing outside
 * `appDir` can satisfy it) and throws when one fails to load or resolves outside the folder.
 */
export function loadExternalsInChild(appDir: string, externals: ExternalImport[]): void {
  const specifiers = [...new Set(externals.map((external) => external.specifier))].sort();
  const script = `
    const { pathToFileURL } = await import('node:url');
    const root = pathToFileURL(process.argv[1] + '/');
    const failures = [];
    for (const specifier of JSON.parse(process.argv[2])) {
      try {
        const url = import.meta.resolve(specifier);
        if (!url.startsWith(root.href)) failures.push(specifier + ' resolved outside the image: ' + url);
        else await import(url);
      } catch (error) {
        failures.push(specifier + ': ' + error.message);
      }
    }
    if (failures.length) { console.error(failures.join('\\n')); process.exit(1); }`;
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', script, realpathSync(appDir), JSON.stringify(specifiers)],
    {
      cwd: path.join(appDir, 'dist'),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
}

/** Total size in bytes of the files under `dir`. */
export function folderSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? folderSize(full) : statSync(full).size;
  }
  return total;
}

/**
 * `pnpm deploy --prod` of workspace package `packageName` into `targetDir` (flat node_modules),
 * offline: the store was filled by `pnpm install`, and the lockfile decides every version.
 */
export function deployProductionDependencies(root: string, packageName: string, targetDir: string): void {
  execFileSync(
    'pnpm',
    [
      '--filter',
      packageName,
      'deploy',
      '--prod',
      '--offline',
      '--config.inject-workspace-packages=true',
      '--config.node-linker=hoisted',
      targetDir,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
