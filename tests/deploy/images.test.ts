/**
 * The image build without Docker: the Dockerfile's shape (stages, non-root numeric user, production
 * mode, pinned bases), the pruning of node_modules on a synthetic tree, the bundle helpers, the
 * dependency-free health probe, and the migration entrypoint's environment handling.
 */
import { expect } from 'chai';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FILE_RELATIVE_MODULES,
  fileRelativeInputs,
  isBuiltin,
  packageNameOf,
} from '../../deploy/images/bundle.js';
import { copyProtos } from '../../deploy/images/build-service-image.js';
import { REPO_ROOT } from '../../deploy/images/deployables.js';
import { decodeServingStatus } from '../../deploy/images/health-probes.js';
import { migrationEnvironment } from '../../deploy/images/migrate.js';
import {
  compareResolutions,
  dependencyClosure,
  removeBuildOnlyFiles,
  removeUnreachablePackages,
} from '../../deploy/images/runtime-dependencies.js';

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

/** The stages of a Dockerfile (FROM ... AS name), each with its instruction lines (continuations joined). */
function dockerfileStages(text: string): Stage[] {
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ name: from[2] ?? '', from: from[1]!, lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

function manifest(name: string, version: string, extra: object = {}): string {
  return JSON.stringify({ name, version, ...extra });
}

describe('deploy: images', () => {
  describe('deploy/Dockerfile', () => {
    const text = readFileSync(path.join(REPO_ROOT, 'deploy/Dockerfile'), 'utf8');
    const stages = dockerfileStages(text);
    const stage = (name: string) => stages.find((item) => item.name === name)!;

    it('has the workspace, build, migrate and runtime stages, with runtime as the default (last) target', () => {
      expect(stages.map((item) => item.name)).to.deep.equal([
        'workspace',
        'build',
        'migrate-build',
        'migrate',
        'runtime',
      ]);
    });

    it('pins its base images by tag (no latest) and defaults to Node 24 LTS: slim and distroless', () => {
      expect(text).to.match(/^ARG NODE_BUILD_IMAGE=node:24-bookworm-slim$/m);
      expect(text).to.match(/^ARG NODE_RUNTIME_IMAGE=gcr\.io\/distroless\/nodejs24-debian12:nonroot$/m);
      expect(text).to.not.match(/:latest\b/);
    });

    it('selects the deployable with ARG SERVICE and builds it with deploy/images/build-service-image.ts', () => {
      expect(stage('build').lines).to.include('ARG SERVICE');
      expect(stage('build').lines.join('\n')).to.contain(
        'deploy/images/build-service-image.ts "${SERVICE}" /image/app',
      );
    });

    it('runs the runtime as a numeric non-root user, in production mode, from /app/dist/main.mjs', () => {
      const runtime = stage('runtime');
      expect(runtime.from).to.equal('${NODE_RUNTIME_IMAGE}');
      expect(runtime.lines).to.include('USER 65532:65532');
      expect(runtime.lines.join('\n')).to.match(/ENV NODE_ENV=production/);
      expect(runtime.lines).to.include('COPY --from=build /image/app /app');
      expect(runtime.lines).to.include('CMD ["/app/dist/main.mjs"]');
      expect(
        runtime.lines.some((line) => /^RUN\b/.test(line)),
        'no RUN: the distroless image has no shell',
      ).to.equal(false);
    });

    it('gives the migrate target the schema engine at build time and a non-root entrypoint', () => {
      const migrate = stage('migrate');
      expect(migrate.lines.join('\n')).to.contain('node node_modules/@prisma/engines/scripts/postinstall.js');
      expect(migrate.lines).to.include('USER 1000:1000');
      expect(migrate.lines).to.include('ENTRYPOINT ["node", "/migrate/migrate.mjs"]');
      expect(migrate.lines.join('\n')).to.match(/ENV NODE_ENV=production/);
    });

    it('keeps local installs and generated code out of the build context', () => {
      const ignore = readFileSync(path.join(REPO_ROOT, 'deploy/Dockerfile.dockerignore'), 'utf8').split('\n');
      expect(ignore).to.include.members([
        '**/node_modules',
        'protos/generated',
        'services/*/src/generated',
        '.git',
      ]);
    });
  });

  describe('pruning node_modules (runtime-dependencies.ts)', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(path.join(tmpdir(), 'tix-prune-'));
      writeFiles(root, {
        'app/node_modules/a/package.json': manifest('a', '1.0.0', {
          dependencies: { b: '^2', '@types/node': '*' },
          optionalDependencies: { 'not-installed': '*' },
          peerDependencies: { tool: '*', runtime: '*' },
          peerDependenciesMeta: { tool: { optional: true } },
        }),
        'app/node_modules/a/index.js': '',
        'app/node_modules/a/index.d.ts': '',
        'app/node_modules/a/index.js.map': '',
        'app/node_modules/a/node_modules/b/package.json': manifest('b', '2.0.0'),
        'app/node_modules/b/package.json': manifest('b', '1.0.0'),
        'app/node_modules/runtime/package.json': manifest('runtime', '1.0.0'),
        'app/node_modules/tool/package.json': manifest('tool', '9.0.0'),
        'app/node_modules/@types/node/package.json': manifest('@types/node', '20.0.0'),
        'app/node_modules/@scope/unused/package.json': manifest('@scope/unused', '1.0.0'),
        'app/node_modules/.bin/tool': '',
        'app/node_modules/.modules.yaml': '',
      });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('keeps what the roots reach (nested versions, required peers), and nothing else', () => {
      const app = path.join(root, 'app');
      const kept = dependencyClosure(app, ['a']);
      expect([...kept.values()].sort()).to.deep.equal(['a@1.0.0', 'b@2.0.0', 'runtime@1.0.0']);
      removeUnreachablePackages(path.join(app, 'node_modules'), new Set(kept.keys()));
      expect(removeBuildOnlyFiles(path.join(app, 'node_modules'))).to.equal(2);
      for (const gone of [
        'b',
        'tool',
        '@types',
        '@scope',
        '.bin',
        '.modules.yaml',
        'a/index.d.ts',
        'a/index.js.map',
      ]) {
        expect(existsSync(path.join(app, 'node_modules', gone)), gone).to.equal(false);
      }
      for (const left of ['a/index.js', 'a/node_modules/b/package.json', 'runtime/package.json']) {
        expect(existsSync(path.join(app, 'node_modules', left)), left).to.equal(true);
      }
    });

    it('refuses a closure with a required package missing', () => {
      rmSync(path.join(root, 'app/node_modules/runtime'), { recursive: true });
      expect(() => dependencyClosure(path.join(root, 'app'), ['a'])).to.throw(
        'runtime (needed by a@1.0.0) is not installed',
      );
    });

    it('never looks above the image folder for a package', () => {
      writeFiles(root, { 'node_modules/outside/package.json': manifest('outside', '1.0.0') });
      expect(() => dependencyClosure(path.join(root, 'app'), ['outside'])).to.throw(
        'outside (needed by the bundle) is not installed',
      );
    });

    it('reports an import that resolves to another version than in the workspace', () => {
      writeFiles(root, {
        'workspace/pkg/node_modules/b/package.json': manifest('b', '3.0.0'),
        'workspace/pkg/src/index.ts': '',
      });
      const externals = [{ specifier: 'b', packageName: 'b', importer: 'pkg/src/index.ts' }];
      expect(
        compareResolutions(path.join(root, 'workspace'), path.join(root, 'app'), externals),
      ).to.deep.equal(['b: pkg/src/index.ts uses 3.0.0 in the workspace, the image has 1.0.0']);
    });
  });

  describe('the protos next to the bundle (build-service-image.ts)', () => {
    let home: string;
    beforeEach(() => {
      home = mkdtempSync(path.join(tmpdir(), 'tix-checkout-'));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));

    it('copies every .proto and nothing else from a checkout whose path has a dot and a space', () => {
      const checkout = path.join(home, 'j.doe', 'tix main.git');
      cpSync(path.join(REPO_ROOT, 'protos/tix'), path.join(checkout, 'protos/tix'), { recursive: true });
      writeFiles(checkout, {
        'protos/tix/README.md': '',
        'protos/tix/common/v1/.DS_Store': '',
        'protos/tix/lookup/v1/notes.txt': '',
      });
      const expected = listFiles(path.join(REPO_ROOT, 'protos/tix'))
        .map((file) => path.relative(path.join(REPO_ROOT, 'protos/tix'), file))
        .filter((file) => file.endsWith('.proto'))
        .sort();
      expect(expected).to.include('common/v1/common.proto');
      const app = path.join(home, 'image.app', 'app root');
      expect(copyProtos(checkout, app)).to.deep.equal(expected);
      expect(
        listFiles(path.join(app, 'tix'))
          .map((file) => path.relative(path.join(app, 'tix'), file))
          .sort(),
      ).to.deep.equal(expected);
    });
  });

  describe('bundle helpers', () => {
    it('names packages and builtins of import specifiers', () => {
      expect(packageNameOf('@prisma/client/runtime/client')).to.equal('@prisma/client');
      expect(packageNameOf('pg')).to.equal('pg');
      expect(isBuiltin('node:fs')).to.equal(true);
      expect(isBuiltin('fs/promises')).to.equal(true);
      expect(isBuiltin('pino')).to.equal(false);
    });

    it('finds the modules that locate files relative to themselves, and knows the ones the image provides for', () => {
      const inputs = ['protos/src/loader-options.ts', 'protos/src/fleet.ts', 'services/lookup/src/server.ts'];
      expect(fileRelativeInputs(REPO_ROOT, inputs)).to.deep.equal([
        'protos/src/loader-options.ts',
        'services/lookup/src/server.ts',
      ]);
      for (const input of fileRelativeInputs(REPO_ROOT, inputs)) {
        expect(
          FILE_RELATIVE_MODULES.some(({ module }) => module.test(input)),
          input,
        ).to.equal(true);
      }
    });
  });

  describe('health probe and migration entrypoint', () => {
    it('decodes grpc.health.v1 serving statuses (proto3 omits UNKNOWN)', () => {
      expect(decodeServingStatus(new Uint8Array([0x08, 0x01]))).to.equal('SERVING');
      expect(decodeServingStatus(new Uint8Array([0x08, 0x02]))).to.equal('NOT_SERVING');
      expect(decodeServingStatus(new Uint8Array([]))).to.equal('UNKNOWN');
      expect(() => decodeServingStatus(new Uint8Array([0x12, 0x00]))).to.throw('unexpected field');
    });

    it("derives a service's database URL from DATABASE_URL unless its own variable is set", () => {
      expect(
        migrationEnvironment('tickets', { DATABASE_URL: 'postgresql://u:p@db:5432/postgres' })
          .TICKETS_DATABASE_URL,
      ).to.equal('postgresql://u:p@db:5432/tix_tickets');
      expect(
        migrationEnvironment('tickets', { TICKETS_DATABASE_URL: 'postgresql://x@y/z' }).TICKETS_DATABASE_URL,
      ).to.equal('postgresql://x@y/z');
      expect(() => migrationEnvironment('lookup', {})).to.throw('set LOOKUP_DATABASE_URL');
    });
  });
});
