/**
 * Bundles a deployable into runnable JavaScript with esbuild. Workspace packages (`@tix/*`, which
 * export TypeScript sources) are compiled into the bundle; every npm package stays an external
 * import, to be installed pruned next to it (runtime-dependencies.ts).
 */
import { builtinModules } from 'node:module';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Deployable } from './deployables.js';

/** Workspace packages are bundled; anything else imported by a bare name stays external. */
const WORKSPACE_SCOPE = '@tix/';

/**
 * Bundled modules that locate files relative to themselves (import.meta.url), and how the image
 * provides those files. A module matching none of these fails the build: its files would be missing.
 */
export const FILE_RELATIVE_MODULES: { module: RegExp; why: string }[] = [
  {
    module: /^protos\/src\/loader-options\.ts$/,
    why: 'PROTO_ROOT is dist/..: the image copies protos/tix to <app>/tix',
  },
  {
    module: /^gateway\/src\/console\/serve-console\.ts$/,
    why: "the console's build: build-service-image.ts copies gateway/web/dist to <app>/console (dist/../console)",
  },
  {
    module: /^services\/[a-z-]+\/src\/server\.ts$/,
    why: "a service's migrations folder: read by tests and the launcher, never at run time",
  },
];

export interface ExternalImport {
  /** As written in the source, e.g. `pg-protocol/dist/messages`. */
  specifier: string;
  /** The npm package it belongs to, e.g. `pg-protocol`. */
  packageName: string;
  /** The bundled file (relative to the repository root) that imports it. */
  importer: string;
}

export interface BundleResult {
  /** Output files, relative to the output folder. */
  outputs: string[];
  externals: ExternalImport[];
  /** Bundled workspace files, relative to the repository root. */
  inputs: string[];
}

const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** True for `node:fs`, `fs`, `fs/promises`: provided by Node, never installed. */
export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(packageNameOf(specifier));
}

const externalPackages: esbuild.Plugin = {
  name: 'tix-external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith(WORKSPACE_SCOPE) || path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Files among `inputs` that read their own location, which a bundle changes. */
export function fileRelativeInputs(root: string, inputs: string[]): string[] {
  return inputs.filter((input) =>
    /import\.meta\.(url|dirname|filename)|__dirname|__filename/.test(
      readFileSync(path.join(root, input), 'utf8'),
    ),
  );
}

/**
 * Bundles every entry of `deployable` into `outDir` as `<entry>.mjs` (ESM for Node 20, the oldest
 * line engines allows, so a bundle runs on the images' Node 24 and on a machine's Node 20; linked
 * source maps without sources). Throws when a bundled module reads its own location and is not known to
 * FILE_RELATIVE_MODULES.
 */
export async function bundleDeployable(
  root: string,
  deployable: Deployable,
  outDir: string,
): Promise<BundleResult> {
  if (!deployable.built)
    throw new Error(`${deployable.name}: ${deployable.dir}/src/main.ts does not exist yet`);
  // esbuild reports paths relative to the real working folder: a checkout reached through a
  // symbolic link (macOS's /tmp, a linked home folder) would otherwise resolve outputs elsewhere.
  const workingDir = realpathSync(root);
  const result = await esbuild.build({
    absWorkingDir: workingDir,
    entryPoints: deployable.entries,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [externalPackages],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  const unknown = fileRelativeInputs(root, inputs).filter(
    (input) => !FILE_RELATIVE_MODULES.some(({ module }) => module.test(input)),
  );
  if (unknown.length > 0) {
    throw new Error(
      `${deployable.name}: bundled modules locate files relative to themselves, which moves in a bundle: ` +
        `${unknown.join(', ')}. Ship those files in the image and list the module in FILE_RELATIVE_MODULES.`,
    );
  }
  const externals: ExternalImport[] = [];
  for (const [importer, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || isBuiltin(imported.path)) continue;
      externals.push({ specifier: imported.path, packageName: packageNameOf(imported.path), importer });
    }
  }
  return {
    outputs: Object.keys(result.metafile.outputs).map((output) =>
      path.relative(outDir, path.resolve(workingDir, output)),
    ),
    externals,
    inputs,
  };
}
