/**
 * The bench's throwaway world: the fleet on free ports with a fresh database prefix and a fresh
 * RabbitMQ vhost, a project + ticket type + users + a project-scoped API key made through the lookup
 * service's gRPC admin calls (what `pnpm tix` does), or, with --baseline-only, just a fresh database
 * with the ticket service's migrations. Everything made is registered on a Teardown, which undoes it
 * in reverse order exactly once, on success, failure or Ctrl-C.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  createLogger,
  createServiceClient,
  dropDatabase,
  type Logger,
  type LogLevel,
  type ServiceClient,
} from '@tix/kit';
import { createTestDatabase, createTestVhost, freePort } from '@tix/kit/testing';
import { builtServices, migrationsDir, serviceDir } from '@tix/local/fleet-layout';
import { startFleet } from '@tix/local/launcher';
import { serviceDatabaseUrls } from '@tix/local/migrate';
import {
  SERVICE_NAMES,
  serviceAddressVariable,
  serviceDatabaseVariable,
  type ServiceName,
} from '@tix/protos';

/** Undo actions, run last-in first-out, once. */
export class Teardown {
  private readonly steps: { label: string; run: () => Promise<unknown> }[] = [];
  private running: Promise<void> | undefined;

  add(label: string, run: () => Promise<unknown>): void {
    this.steps.push({ label, run });
  }

  /** Runs every step even when one fails (each failure is reported on stderr). */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.run();
        } catch (error) {
          process.stderr.write(`teardown: ${step.label} failed: ${(error as Error).message}\n`);
        }
      }
    })();
    return this.running;
  }
}

/**
 * A bench's teardown, also run when the bench is interrupted (SIGINT, SIGTERM), which then exits 130;
 * `log`, when given, reports the signal.
 */
export function teardownOnSignal(log?: (message: string) => void): Teardown {
  const teardown = new Teardown();
  const onSignal = (signal: NodeJS.Signals) => {
    log?.(`${signal}: cleaning up`);
    void teardown.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return teardown;
}

export interface ProjectStatus {
  slug: string;
  label: string;
  is_closed: boolean;
  position: number;
}

/** The project the bench works in, as both targets need it. */
export interface BenchProject {
  id: number;
  slug: string;
  prefix: string;
  /** In workflow (lane) order. */
  statuses: ProjectStatus[];
}

export interface BenchEnvironment {
  ticketsDatabaseUrl: string;
  /** Every database the bench made (its PostgreSQL backends are counted in the CPU figures). */
  databaseUrls: string[];
  project: BenchProject;
  ticketTypeId: number;
  /** The key's user: created_by of the seeded tickets. */
  userId: number;
  /** Assignees spread over the seeded tickets. */
  assigneeIds: number[];
  apiKey: string;
  /** Absent with --baseline-only. */
  fleetUrl?: string;
  /** The session host (browser sign-in, /api); absent with --baseline-only. */
  appUrl?: string;
  /** The lookup service, for benches that make more users or projects; absent with --baseline-only. */
  lookup?: ServiceClient<'lookup'>;
  /** The environment the fleet's processes run with (service addresses); absent with --baseline-only. */
  fleetEnv?: NodeJS.ProcessEnv;
}

const DEFAULT_STATUSES: ProjectStatus[] = [
  { slug: 'open', label: 'Open', is_closed: false, position: 0 },
  { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
  { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
  { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
];

const ASSIGNEES = 10;

/** The ticket service's migrations folder, or a clear error naming what is missing. */
export function ticketMigrationsDir(): string {
  const dir = migrationsDir('tickets');
  if (!dir) {
    throw new Error(
      `the ticket service has no migrations yet (${path.join(serviceDir('tickets'), 'prisma/migrations')} ` +
        'is missing): the bench seeds straight into its tables and cannot run without them',
    );
  }
  return dir;
}

/** Fails with a clear message when the checkout cannot run the fleet part of the bench. */
export function assertFleetHasTickets(): void {
  ticketMigrationsDir();
  if (!builtServices().includes('tickets')) {
    throw new Error(
      `the ticket service is not built yet (${path.join(serviceDir('tickets'), 'src/main.ts')} is missing). ` +
        'Run `pnpm bench --baseline-only` to measure the baseline alone.',
    );
  }
}

/** startFleetEnvironment for a bench: the fleet at `logLevel`, the environment's own log lines as `bench`. */
export function startBenchFleet(
  teardown: Teardown,
  logLevel: LogLevel,
  env: NodeJS.ProcessEnv = {},
): Promise<BenchEnvironment> {
  return startFleetEnvironment(teardown, {
    logLevel,
    logger: createLogger({ service: 'bench', level: logLevel }),
    env,
  });
}

/**
 * Starts the fleet (fresh ports, database prefix and vhost; logs at `logLevel` to stderr) and makes
 * the project, type, users and key through the lookup service.
 */
export async function startFleetEnvironment(
  teardown: Teardown,
  options: { logLevel: string; logger: Logger; env?: NodeJS.ProcessEnv },
): Promise<BenchEnvironment> {
  assertFleetHasTickets();
  const vhost = await createTestVhost('bench');
  teardown.add('delete the RabbitMQ vhost', () => vhost.drop());
  const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'tix-bench-s3-'));
  teardown.add('remove the S3 data folder', () => rm(s3Dir, { recursive: true, force: true }));

  const servicePorts: Partial<Record<ServiceName, number>> = {};
  for (const name of SERVICE_NAMES) servicePorts[name] = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    AMQP_URL: vhost.url,
    LOG_LEVEL: options.logLevel,
  };
  for (const name of SERVICE_NAMES) delete env[serviceDatabaseVariable(name)];
  delete env.S3_ENDPOINT;
  const databasePrefix = `bench_${randomBytes(3).toString('hex')}_`;
  // Known and registered before starting: startFleet creates them first, and may fail after that.
  const databaseUrls = new Set(Object.values(serviceDatabaseUrls(env, databasePrefix)));
  teardown.add('drop the fleet databases', async () => {
    for (const url of databaseUrls) await dropDatabase(url);
  });
  const fleet = await startFleet({
    env,
    apiPort: await freePort(),
    appPort: await freePort(),
    servicePorts,
    s3Port: await freePort(),
    s3DataDir: s3Dir,
    databasePrefix,
    logger: options.logger,
    logOutput: process.stderr,
  });
  teardown.add('stop the fleet', () => fleet.stop());
  const ticketsDatabaseUrl = fleet.env[serviceDatabaseVariable('tickets')];
  if (!ticketsDatabaseUrl) throw new Error('the fleet started without a tickets database');

  const lookup = createServiceClient('lookup', fleet.env[serviceAddressVariable('lookup')]!, {
    deadlineMs: 10_000,
  });
  teardown.add('close the lookup client', () => Promise.resolve(lookup.close()));
  const context = { correlationId: `bench-${randomBytes(4).toString('hex')}` };
  const suffix = randomBytes(3).toString('hex');
  const project = await lookup.CreateProject(
    {
      name: `Bench ${suffix}`,
      slug: `bench-${suffix}`,
      prefix: 'BENCH',
      description: 'pnpm bench',
      statuses: [],
    },
    context,
  );
  const type = await lookup.CreateTicketType(
    {
      project_id: project.id,
      name: 'Task',
      slug: 'task',
      description: '',
      is_default: true,
      field_schema_json: '',
    },
    context,
  );
  const user = await lookup.CreateUser(
    { name: 'Bench caller', email: `bench-${suffix}@example.com`, role: 'agent' },
    context,
  );
  const assigneeIds: number[] = [];
  for (let i = 0; i < ASSIGNEES; i += 1) {
    const assignee = await lookup.CreateUser(
      { name: `Bench agent ${i}`, email: `bench-${suffix}-agent${i}@example.com`, role: 'agent' },
      context,
    );
    assigneeIds.push(assignee.id);
  }
  const key = await lookup.CreateApiKey(
    {
      user_id: user.id,
      scopes: ['tickets:read', 'tickets:write'],
      project_id: project.id,
      name: 'bench',
    },
    context,
  );
  return {
    ticketsDatabaseUrl,
    databaseUrls: [...databaseUrls],
    project: {
      id: project.id,
      slug: project.slug,
      prefix: project.prefix,
      statuses: project.statuses.map((status) => ({
        slug: status.slug,
        label: status.label,
        is_closed: status.is_closed,
        position: status.position,
      })),
    },
    ticketTypeId: type.id,
    userId: user.id,
    assigneeIds,
    apiKey: key.key,
    fleetUrl: fleet.apiUrl,
    appUrl: fleet.appUrl,
    lookup,
    fleetEnv: fleet.env,
  };
}

/**
 * --baseline-only: a fresh database with the ticket service's migrations, and stand-in ids for the
 * project, type and users (the baseline never asks anyone about them).
 */
export async function startBaselineOnlyEnvironment(teardown: Teardown): Promise<BenchEnvironment> {
  const database = await createTestDatabase('bench', ticketMigrationsDir());
  teardown.add('drop the bench database', () => database.drop());
  return {
    ticketsDatabaseUrl: database.url,
    databaseUrls: [database.url],
    project: { id: 1, slug: 'bench', prefix: 'BENCH', statuses: DEFAULT_STATUSES },
    ticketTypeId: 1,
    userId: 1,
    assigneeIds: Array.from({ length: ASSIGNEES }, (_, i) => i + 2),
    apiKey: `tix_bench_${randomBytes(16).toString('hex')}`,
  };
}
