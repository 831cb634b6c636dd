/**
 * What `docker build` would do, proven without Docker: build the image roots of every built
 * deployable (bundle + pruned production dependencies) with the Dockerfile's own script, then run
 * lookup and the gateway from them with plain `node` (no tsx, no workspace) against the local
 * PostgreSQL and RabbitMQ: /readyz, the container healthcheck, the admin CLI and an API call that
 * goes through Prisma, then SIGTERM and exit 0. Also builds the migration image root. Everything is
 * built from the checkout as reached through a path with a dot and a space (a clone under
 * /home/j.doe/tix main), into folders named the same way: no build step may depend on where the
 * checkout lives.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  freePort,
  type TestDatabase,
  type TestVhost,
} from '@tix/kit/testing';
import { buildMigrateImage } from '../../deploy/images/build-migrate-image.js';
import { buildServiceImage, type ServiceImageReport } from '../../deploy/images/build-service-image.js';
import { listDeployables, PRISMA_CONFIG_FILE, REPO_ROOT } from '../../deploy/images/deployables.js';

const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_OPTIONS: '--enable-source-maps' };

function start(appDir: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['dist/main.mjs'], {
    cwd: appDir,
    env: { ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function run(appDir: string, args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, args, {
    cwd: appDir,
    env: { ...BASE_ENV, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

describe('deploy: image roots built and run without Docker', function () {
  this.timeout(180_000);
  const workDir = mkdtempSync(path.join(tmpdir(), 'tix-images-'));
  // A symbolic link stands in for a clone at such a path: same sources, installed dependencies.
  const checkout = path.join(workDir, 'home', 'j.doe', 'tix main');
  const imagesDir = path.join(workDir, 'image.roots', 'with space');
  const reports = new Map<string, ServiceImageReport>();
  const children: ChildProcess[] = [];
  let database: TestDatabase | undefined;
  let vhost: TestVhost | undefined;

  before(async () => {
    mkdirSync(path.dirname(checkout), { recursive: true });
    symlinkSync(REPO_ROOT, checkout, 'dir');
    for (const deployable of listDeployables(checkout).filter((item) => item.built)) {
      reports.set(
        deployable.name,
        await buildServiceImage(deployable.name, path.join(imagesDir, deployable.name), checkout),
      );
    }
  });

  after(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.drop();
    await vhost?.drop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('builds every deployable that exists, each with its bundles and the protos next to them', () => {
    const built = listDeployables()
      .filter((item) => item.built)
      .map((item) => item.name);
    expect([...reports.keys()]).to.deep.equal(built);
    for (const [name, report] of reports) {
      for (const file of [
        'dist/main.mjs',
        'dist/healthcheck.mjs',
        'tix/lookup/v1/lookup_service.proto',
        'tix/common/v1/common.proto',
      ]) {
        expect(existsSync(path.join(report.appDir, file)), `${name} ${file}`).to.equal(true);
      }
    }
    expect(existsSync(path.join(reports.get('lookup')!.appDir, 'dist/cli.mjs'))).to.equal(true);
  });

  /**
   * What an image root may weigh (node_modules and bundles), in MiB: 40, except mail, which ships
   * the mail stack (imapflow, mailparser, smtp-server, nodemailer and mailauth with its DNS, PSL and
   * HTTP clients; about 42 MiB in all).
   */
  const SIZE_BUDGET_MIB: Record<string, number> = { mail: 48 };

  it('ships only what the bundles import: no dev tools, no workspace sources, no type declarations', () => {
    for (const [name, report] of reports) {
      const names = report.packages.map((item) => item.replace(/@[^@]+$/, ''));
      for (const absent of ['prisma', 'typescript', 'tsx', 'esbuild', 'mocha', '@tix/kit', '@types/node']) {
        expect(names, name).to.not.include(absent);
      }
      const files = listFiles(path.join(report.appDir, 'node_modules'));
      expect(
        files.filter((file) => /\.d\.[cm]?ts$/.test(file)),
        name,
      ).to.deep.equal([]);
      expect(report.bytes, `${name} size`).to.be.below((SIZE_BUDGET_MIB[name] ?? 40) * 1024 * 1024);
    }
    // Lookup reaches its database through pg like every service: no Prisma client at run time.
    const lookupPackages = reports.get('lookup')!.packages.map((item) => item.replace(/@[^@]+$/, ''));
    expect(lookupPackages).to.include('pg');
    expect(lookupPackages).to.not.include('@prisma/client');
    expect(reports.get('gateway')!.packages.map((item) => item.replace(/@[^@]+$/, ''))).to.include.members([
      'express',
      'redis',
    ]);
  });

  it('runs lookup and the gateway from the bundles: readiness, healthchecks, the CLI, an API call through pg, SIGTERM', async () => {
    database = await createTestDatabase(
      'image_run',
      path.join(REPO_ROOT, 'services/lookup/prisma/migrations'),
    );
    vhost = await createTestVhost('image_run');
    const grpcPort = await freePort();
    const lookupDir = reports.get('lookup')!.appDir;
    const gatewayDir = reports.get('gateway')!.appDir;
    const lookupEnv = {
      NODE_ENV: 'production',
      LOOKUP_DATABASE_URL: database.url,
      AMQP_URL: vhost.url,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    const lookup = start(lookupDir, lookupEnv);
    children.push(lookup);
    await eventually(
      () => run(lookupDir, ['dist/healthcheck.mjs', 'lookup'], lookupEnv).status === 0,
      20_000,
      200,
    );

    const apiPort = await freePort();
    const gatewayEnv = {
      NODE_ENV: 'development',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_API_PORT: String(apiPort),
      GATEWAY_APP_PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      LOOKUP_SERVICE_ADDR: `127.0.0.1:${grpcPort}`,
      TICKETS_SERVICE_ADDR: 'none',
      COMMENTS_SERVICE_ADDR: 'none',
      ATTACHMENTS_SERVICE_ADDR: 'none',
      WEBHOOKS_SERVICE_ADDR: 'none',
      ACTIVITY_SERVICE_ADDR: 'none',
      AI_SERVICE_ADDR: 'none',
      MAIL_SERVICE_ADDR: 'none',
      CUSTOMERS_SERVICE_ADDR: 'none',
      SLA_SERVICE_ADDR: 'none',
      AMQP_URL: vhost.url,
      LOG_LEVEL: 'warn',
    };
    const gateway = start(gatewayDir, gatewayEnv);
    children.push(gateway);
    const ready = await eventually(async () => {
      const response = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
      return response.status === 200 ? await response.json() : undefined;
    }, 20_000);
    expect(ready).to.deep.equal({
      ok: true,
      data: {
        status: 'ready',
        services: {
          lookup: 'serving',
          tickets: 'not_deployed',
          comments: 'not_deployed',
          attachments: 'not_deployed',
          webhooks: 'not_deployed',
          activity: 'not_deployed',
          ai: 'not_deployed',
          mail: 'not_deployed',
          customers: 'not_deployed',
          sla: 'not_deployed',
        },
        breakers: {
          lookup: 'closed',
          tickets: 'not_deployed',
          comments: 'not_deployed',
          attachments: 'not_deployed',
          webhooks: 'not_deployed',
          activity: 'not_deployed',
          ai: 'not_deployed',
          mail: 'not_deployed',
          customers: 'not_deployed',
          sla: 'not_deployed',
        },
        rate_limits: 'in_memory',
      },
    });
    // The bundles carry the metrics client: each process answers its own /metrics.
    for (const env of [lookupEnv, gatewayEnv]) {
      const metrics = await fetch(`http://127.0.0.1:${env.METRICS_PORT}/metrics`);
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.match(/^process_cpu_user_seconds_total\{service="(lookup|gateway)"\}/m);
    }
    expect(run(gatewayDir, ['dist/healthcheck.mjs', 'gateway'], gatewayEnv).status).to.equal(0);

    // Only lookup runs here: the demo tickets would need the ticket and comment services.
    const seeded = run(lookupDir, ['dist/cli.mjs', 'seed', '--demo', '--without-tickets', '--json'], {
      LOOKUP_SERVICE_ADDR: `127.0.0.1:${grpcPort}`,
    });
    expect(seeded.status, seeded.stderr).to.equal(0);
    const { created_keys: keys } = JSON.parse(seeded.stdout) as {
      created_keys: { key: string; project_id: number | null }[];
    };
    const key = keys.find((item) => item.project_id === null)!.key;
    const response = await fetch(`http://127.0.0.1:${apiPort}/v1/projects`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as { data: { projects: { slug: string }[] } };
    expect(body.data.projects.map((project) => project.slug)).to.include('support');

    gateway.kill('SIGTERM');
    lookup.kill('SIGTERM');
    expect(await exitCode(gateway)).to.equal(0);
    expect(await exitCode(lookup)).to.equal(0);
    expect(run(lookupDir, ['dist/healthcheck.mjs', 'lookup'], lookupEnv).status).to.equal(1);
  });

  it("builds the migration image root: the Prisma CLI, each service's migrations and config, and a no-op for the rest", async () => {
    const report = await buildMigrateImage(path.join(imagesDir, 'migrate'), checkout);
    const withMigrations = listDeployables()
      .filter((item) => item.name !== 'gateway' && item.migrationsDir)
      .map((item) => item.name);
    expect(report.services).to.deep.equal(withMigrations);
    expect(report.prismaVersion).to.equal('7.10.1');
    for (const service of withMigrations) {
      expect(
        existsSync(path.join(report.migrateDir, 'services', service, PRISMA_CONFIG_FILE)),
        service,
      ).to.equal(true);
    }
    const pending = listDeployables().find((item) => item.name !== 'gateway' && !item.migrationsDir);
    if (pending) {
      const noop = run(report.migrateDir, ['migrate.mjs', pending.name], {});
      expect(noop.status).to.equal(0);
      expect(noop.stdout).to.equal(`${pending.name}: this image holds no migrations for it; nothing to do\n`);
    }
    const unconfigured = run(report.migrateDir, ['migrate.mjs', 'lookup'], {});
    expect(unconfigured.status).to.equal(78);
    expect(unconfigured.stderr).to.contain('set LOOKUP_DATABASE_URL');
  });
});
