/** Helpers for tests across the workspace: fresh databases, free ports, quiet loggers, real services. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { expect } from 'chai';
import pg from 'pg';
import type { ServiceName } from '@tix/protos';
import { DEFAULT_DATABASE_SERVER_URL, serviceDatabaseUrl } from '../config.js';
import { dropDatabase, ensureDatabase } from '../db/databases.js';
import { applyMigrations } from '../db/migrations.js';
import { createServiceClient, type ServiceClient } from '../grpc/client.js';
import { createLogger, type Logger } from '../logger.js';
import type { CommonServiceConfig, PeerConfig } from '../service-config.js';
import {
  startTixService,
  type RunningTixService,
  type ServiceParts,
  type TixServiceDefinition,
} from '../service.js';

export * from './config.js';
export * from './envelope.js';
export * from './events.js';
export * from './metrics.js';
export * from './outbox.js';
export * from './refusal.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The PostgreSQL server tests use (DATABASE_URL, else the loopback default). */
export function testDatabaseServerUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_SERVER_URL;
}

/** Creates a fresh, uniquely named database (optionally migrated); drop() removes it. */
export async function createTestDatabase(label: string, migrationsDir?: string): Promise<TestDatabase> {
  const name = `tix_test_${label}_${randomBytes(4).toString('hex')}`;
  const url = serviceDatabaseUrl(testDatabaseServerUrl(), name);
  await ensureDatabase(url);
  if (migrationsDir) await applyMigrations({ connectionString: url, migrationsDir });
  return { url, drop: () => dropDatabase(url) };
}

/** Config values over others: any top-level field, and any of the peers' addresses. */
export type ConfigOverrides<Config> = Partial<Omit<Config, 'peers'>> &
  (Config extends { peers: infer Peers } ? { peers?: Partial<Peers> } : unknown);

export interface TestServiceOptions<Config> {
  /** Database name label (default: the service's name). */
  label?: string;
  /** Serve this existing database instead of a fresh one (a restart); stop() then leaves it. */
  databaseUrl?: string;
  /** Config values over the defaults of an empty environment (e.g. a peer's address: `peers: { tickets }`). */
  config?: ConfigOverrides<Config>;
  logger?: Logger;
  /**
   * The broker of the outbox relay and the consumers (e.g. createTestVhost(...).url); without it
   * the service never talks to RabbitMQ.
   */
  amqpUrl?: string;
}

export interface TestService<Parts extends ServiceParts> extends RunningTixService<Parts> {
  /** The database it serves (query it directly to arrange or inspect state, e.g. outbox_events). */
  databaseUrl: string;
  /** Stops the service (1 s grace by default) and drops its database (unless it was given one). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a service exactly as its main.ts does (startTixService), on 127.0.0.1 (free port) over a
 * fresh, migrated database, with the configuration of an empty environment plus `options.config`.
 */
export async function startTestService<
  Config extends CommonServiceConfig,
  Peer extends ServiceName,
  Parts extends ServiceParts,
>(
  definition: TixServiceDefinition<Config, Peer, Parts>,
  options: TestServiceOptions<Config & PeerConfig<Peer>> = {},
): Promise<TestService<Parts>> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: () => Promise.resolve() }
    : await createTestDatabase(options.label ?? definition.name, definition.migrations);
  try {
    const defaults = definition.config({});
    const peers = (config: unknown) => (config as { peers?: object } | undefined)?.peers;
    const service = await startTixService(
      definition,
      {
        ...defaults,
        grpcHost: '127.0.0.1',
        grpcPort: 0,
        ...(options.config as Partial<Config & PeerConfig<Peer>>),
        ...(peers(defaults) && { peers: { ...peers(defaults), ...peers(options.config) } }),
        databaseUrl: database.url,
        ...(options.amqpUrl === undefined ? {} : { amqpUrl: options.amqpUrl }),
      },
      { logger: options.logger ?? testLogger(definition.name), broker: options.amqpUrl !== undefined },
    );
    return {
      ...service,
      databaseUrl: database.url,
      stop: (graceMs = 1_000) => service.stop(graceMs).finally(() => database.drop()),
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A logger that stays quiet unless TEST_LOG_LEVEL asks otherwise. */
export function testLogger(service = 'test'): Logger {
  const level = (process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent';
  return createLogger({ service, level });
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T> | T,
  timeoutMs = 5_000,
  intervalMs = 25,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`condition not met within ${timeoutMs} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface TestVhost {
  /** AMQP_URL pointing at the fresh virtual host. */
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh RabbitMQ virtual host (with rabbitmqctl, as on the CI machines) so a test's
 * exchanges and queues never meet another test's or a running fleet's.
 */
export async function createTestVhost(label: string): Promise<TestVhost> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const run = promisify(execFile);
  const name = `tix_test_${label}_${randomBytes(4).toString('hex')}`;
  const base = new URL(process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672');
  await run('rabbitmqctl', ['add_vhost', name]);
  await run('rabbitmqctl', [
    'set_permissions',
    '-p',
    name,
    decodeURIComponent(base.username || 'guest'),
    '.*',
    '.*',
    '.*',
  ]);
  base.pathname = `/${name}`;
  return {
    url: base.toString(),
    drop: () => run('rabbitmqctl', ['delete_vhost', name]).then(() => undefined),
  };
}

export interface TcpProxy {
  port: number;
  /** Stops accepting and cuts every open connection (the target looks dead). */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback TCP proxy to `target` that a test can cut and restore, to simulate an outage. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

export interface TestProcess {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** When it exited (Date.now()), once it has: for timing a graceful stop. */
  exitedAt(): number | undefined;
  /** Sends the signal (SIGTERM by default) and answers the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL unless it already exited (for after hooks); resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * Runs a TypeScript entry point (`node --import tsx <entry>`) the way a deployment runs a process,
 * capturing its output. `env` is added to this process's environment, or with `inheritEnv: false`
 * is all it gets (PATH kept), so nothing from the test's own environment leaks in.
 */
export function startTestProcess(
  entry: string,
  env: NodeJS.ProcessEnv,
  options: { cwd?: string; inheritEnv?: boolean } = {},
): TestProcess {
  const base = options.inheritEnv === false ? { PATH: process.env.PATH ?? '' } : process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exitedAt: number | undefined;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', () => (exitedAt = Date.now()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    output: () => output,
    exited,
    exitedAt: () => exitedAt,
    stop: (signal = 'SIGTERM') => {
      if (running()) child.kill(signal);
      return exited;
    },
    kill: async () => {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A package's process, `src/main.ts`, run from the package's folder as the launcher runs it, with
 * LOG_LEVEL=warn unless `env` says otherwise. `from` is any path inside the package, or a test
 * file's `import.meta.url`: the nearest folder above it with a package.json is the package.
 */
export function startMainProcess(
  from: string,
  env: NodeJS.ProcessEnv,
  options: { inheritEnv?: boolean } = {},
): TestProcess {
  return startTestProcess(
    'src/main.ts',
    { LOG_LEVEL: 'warn', ...env },
    { ...options, cwd: packageDirOf(from) },
  );
}

function packageDirOf(from: string): string {
  let dir = path.resolve(from.startsWith('file:') ? fileURLToPath(from) : from);
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/*
 * The steps every service's main-process test (test/integration/main-process.test.ts) shares: the
 * process on a free port with its client, the outbox relayed, the clean stop, the refused config.
 */

/** A service's process run as the launcher runs it on a free port, and its client (healthy unless `wait: false`). */
export async function startServingMainProcess<N extends ServiceName>(
  from: string,
  service: N,
  env: NodeJS.ProcessEnv,
  options: { wait?: boolean } = {},
): Promise<{ main: TestProcess; client: ServiceClient<N> }> {
  const port = await freePort();
  const main = startMainProcess(from, { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(port), ...env });
  const client = createServiceClient(service, `127.0.0.1:${port}`, { deadlineMs: 5_000 });
  if (options.wait !== false) await eventually(() => client.checkHealth(), 20_000);
  return { main, client };
}

/** Waits until the database's outbox holds exactly `types`, in order, all published (RabbitMQ confirmed them). */
export async function expectOutboxRelayed(databaseUrl: string, types: readonly string[]): Promise<void> {
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const relayed = await eventually(async () => {
      const { rows } = await sql.query<{ event_type: string; published_at: Date | null }>(
        'SELECT event_type, published_at FROM outbox_events ORDER BY seq',
      );
      return (
        rows.length === types.length &&
        rows.every((row, index) => row.event_type === types[index] && row.published_at !== null)
      );
    }, 20_000);
    expect(relayed).to.equal(true);
  } finally {
    await sql.end();
  }
}

/** SIGTERM: the process exits 0 (its output shown otherwise) and answers no health check after. */
export async function expectCleanStop(
  main: TestProcess,
  client: { checkHealth(timeoutMs?: number): Promise<boolean> },
): Promise<void> {
  expect(await main.stop(), main.output()).to.equal(0);
  expect(await client.checkHealth(500)).to.equal(false);
}

/**
 * What a main-process suite's process serves: a fresh migrated database and a fresh RabbitMQ virtual
 * host, both named after `label`, made in the suite's first `before` and dropped after it.
 */
export function mainProcessStores(
  label: string,
  migrationsDir: string,
): { database: TestDatabase; vhost: TestVhost; stop(): Promise<void> } {
  return suiteFixture(async () => {
    const database = await createTestDatabase(label, migrationsDir);
    const vhost = await createTestVhost(label).catch(async (error: unknown) => {
      await database.drop();
      throw error;
    });
    return {
      database,
      vhost,
      async stop() {
        await database.drop();
        await vhost.drop();
      },
    };
  });
}

/**
 * A main-process test's run: the process serving (startServingMainProcess), `exercise` against its
 * client (healthy first unless `wait: false`), then the outbox of `databaseUrl` relayed as `relayed`
 * (expectOutboxRelayed) and a clean stop (expectCleanStop); the client is closed and the process
 * killed however the run ends.
 */
export async function exerciseMainProcess<N extends ServiceName>(
  from: string,
  service: N,
  env: NodeJS.ProcessEnv,
  options: { databaseUrl: string; relayed: readonly string[]; wait?: boolean },
  exercise: (client: ServiceClient<N>) => Promise<void>,
): Promise<void> {
  const { main, client } = await startServingMainProcess(from, service, env, { wait: options.wait });
  try {
    await exercise(client);
    await expectOutboxRelayed(options.databaseUrl, options.relayed);
    await expectCleanStop(main, client);
  } finally {
    client.close();
    await main.kill();
  }
}

/** A bad configuration: the process exits 78 (EX_CONFIG) at once, its output naming each of `mentions`. */
export async function expectConfigRefused(
  from: string,
  env: NodeJS.ProcessEnv,
  mentions: readonly string[],
): Promise<void> {
  const main = startMainProcess(from, env);
  expect(await main.exited).to.equal(78);
  for (const mention of mentions) expect(main.output()).to.contain(mention);
}

/**
 * A data export's stream against a caller that stops reading: reads the first item, pauses for
 * `pauseMs`, counts the database's connections busy meanwhile (in a query or a transaction: the
 * service should hold none while it waits), then cancels and answers how the stream ended (an
 * error, not as if complete, is right).
 */
export async function pausedExport(
  call: ClientReadableStream<unknown>,
  sql: pg.Pool,
  pauseMs = 500,
): Promise<{ busyConnections: number; ended: Error | null }> {
  const ended = new Promise<Error | null>((resolve) => {
    call.on('error', (error: Error) => resolve(error));
    call.on('end', () => resolve(null));
  });
  await new Promise<void>((resolve) => call.once('data', () => resolve()));
  call.pause();
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
  const { rows } = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND (state LIKE 'idle in transaction%' OR state = 'active')`,
  );
  call.cancel();
  return { busyConnections: rows[0]!.n, ended: await ended };
}

/**
 * A suite's fixture: started by `start` in the suite's first `before` hook and stopped in an
 * `after` hook, and usable in the suite's hooks and tests as the fixture itself (a stand-in that
 * forwards to it once started). Call it in the `describe` body, before the suite's own hooks.
 */
export function suiteFixture<F extends { stop(): Promise<unknown> }>(start: () => Promise<F>): F {
  let fixture: F | undefined;
  before(async () => {
    fixture = await start();
  });
  after(async () => {
    await fixture?.stop();
  });
  return new Proxy({} as F, {
    get(_target, key) {
      if (!fixture) throw new Error(`the suite's fixture was used (${String(key)}) before it started`);
      const value: unknown = Reflect.get(fixture, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(fixture) : value;
    },
  });
}
