/**
 * Starts the whole fleet on one machine: databases and migrations first, the embedded S3 store when
 * S3_ENDPOINT is unset, then every built service and the gateway as separate processes with prefixed
 * logs, and waits until the gateway's /readyz answers 200. Used by `pnpm start` and the end-to-end tests.
 *
 * Like a Kubernetes restart policy, a process that dies on its own once the fleet is ready is started
 * again after a backoff (1 s, doubling to 30 s, reset after a minute up), with a loud error line and
 * TIX_RESTART_COUNT in its environment (its /metrics shows it as tix_process_restarts). Every crash is
 * recorded in `crashes`, so a test can tell that a request killed a process even though it came back.
 * A process that dies before the fleet is ready fails the start instead: that is a broken
 * configuration or build, and retrying it would only hide the message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_AMQP_URL, type Logger } from '@tix/kit';
import {
  defaultMetricsPort,
  FLEET,
  SERVICE_NAMES,
  SERVICE_NOT_DEPLOYED,
  serviceAddressVariable,
  serviceDatabaseVariable,
  type FleetProcessName,
  type ServiceName,
  GATEWAY_DEFAULT_PORTS,
} from '@tix/protos';
import { prefixLines } from './child-logs.js';
import { builtServices, REPO_ROOT, serviceDir } from './fleet-layout.js';
import { migrateAll, serviceDatabaseUrls } from './migrate.js';

export interface FleetOptions {
  /** Environment the fleet is configured from (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  apiPort?: number;
  appPort?: number;
  /** gRPC port per service (defaults: FLEET ports). */
  servicePorts?: Partial<Record<ServiceName, number>>;
  /**
   * /metrics port per process (defaults: <NAME>_METRICS_PORT, else the fleet map's, so each
   * process gets its own on one machine; 0 turns a process's endpoint off).
   */
  metricsPorts?: Partial<Record<FleetProcessName, number>>;
  /** Prepended to every service's database name (tests use a fresh prefix per run). */
  databasePrefix?: string;
  s3Port?: number;
  s3DataDir?: string;
  logger: Logger;
  /** Where children's logs go (default: this process's stdout); null discards them. */
  logOutput?: NodeJS.WritableStream | null;
  pretty?: boolean;
  readyTimeoutMs?: number;
}

/** A process that exited without being asked to. */
export interface ProcessCrash {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Date.now() of the exit. */
  at: number;
}

/** Backoff before the n-th restart in a row (1 s, 2 s, 4 s ... 30 s). */
export function restartBackoffMs(consecutiveCrashes: number): number {
  return Math.min(
    RESTART_BACKOFF_MAX_MS,
    RESTART_BACKOFF_FIRST_MS * 2 ** Math.max(0, consecutiveCrashes - 1),
  );
}
const RESTART_BACKOFF_FIRST_MS = 1_000;
const RESTART_BACKOFF_MAX_MS = 30_000;
/** Up this long, a process's next crash starts the backoff from the beginning again. */
const RESTART_BACKOFF_RESET_MS = 60_000;

export interface RunningFleet {
  apiUrl: string;
  appUrl: string;
  /** http://127.0.0.1:<port>/metrics of each process that serves one. */
  metricsUrls: Partial<Record<FleetProcessName, string>>;
  /** Environment shared by the fleet's processes (service addresses, database URLs, AMQP, S3). */
  env: NodeJS.ProcessEnv;
  services: ServiceName[];
  /** Resolves when any process exits on its own before the fleet is ready (with its name and code). */
  exited: Promise<{ name: string; code: number | null }>;
  /** Every exit nobody asked for, oldest first (restarted ones included). */
  crashes: readonly ProcessCrash[];
  /** SIGTERM to every process, SIGKILL after the grace period. */
  stop(graceMs?: number): Promise<void>;
  /** Stops and restarts one process with the same environment (fault-injection tests). */
  restart(name: ServiceName | 'gateway'): Promise<void>;
  /** The operating-system pid of a process, while it runs (fault-injection tests). */
  pid(name: ServiceName | 'gateway'): number | undefined;
  /** Stops one process (fault-injection tests). */
  kill(name: ServiceName | 'gateway', signal?: NodeJS.Signals): Promise<void>;
}

interface Managed {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  child?: ChildProcess;
  /** Restarts so far (passed to the process as TIX_RESTART_COUNT). */
  restarts: number;
  /** Crashes since the process last stayed up RESTART_BACKOFF_RESET_MS. */
  consecutiveCrashes: number;
  startedAt: number;
  restartTimer?: NodeJS.Timeout;
}

const TSX_ARGS = ['--import', 'tsx'];

/**
 * Extra Node flags for every fleet process, for investigations (e.g. TIX_NODE_FLAGS="--cpu-prof
 * --cpu-prof-dir=.tix/profiles"; Node refuses profiler flags in NODE_OPTIONS).
 */
export function extraNodeFlags(env: NodeJS.ProcessEnv): string[] {
  return (env.TIX_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.length > 0);
}

/** Starts the fleet and resolves once the gateway is ready. */
export async function startFleet(options: FleetOptions): Promise<RunningFleet> {
  const baseEnv = { ...(options.env ?? process.env) };
  const { logger } = options;
  const services = builtServices();
  const apiPort = options.apiPort ?? Number(baseEnv.GATEWAY_API_PORT ?? GATEWAY_DEFAULT_PORTS.api);
  const appPort = options.appPort ?? Number(baseEnv.GATEWAY_APP_PORT ?? GATEWAY_DEFAULT_PORTS.app);
  const port = (name: ServiceName) =>
    options.servicePorts?.[name] ??
    Number(baseEnv[`${name.toUpperCase()}_GRPC_PORT`] ?? FLEET[name].grpcPort);

  const metricsPort = (name: FleetProcessName) =>
    options.metricsPorts?.[name] ??
    Number(baseEnv[`${name.toUpperCase()}_METRICS_PORT`] ?? defaultMetricsPort(name));
  const metricsUrls: Partial<Record<FleetProcessName, string>> = {};

  const databaseUrls = serviceDatabaseUrls(baseEnv, options.databasePrefix);
  await migrateAll(databaseUrls, logger);

  const fleetEnv: NodeJS.ProcessEnv = {
    ...baseEnv,
    NODE_ENV: baseEnv.NODE_ENV ?? 'development',
    AMQP_URL: baseEnv.AMQP_URL ?? DEFAULT_AMQP_URL,
    GATEWAY_API_PORT: String(apiPort),
    GATEWAY_APP_PORT: String(appPort),
    // Without SMTP_URL, the gateway's password reset mail and the mail service's outgoing mail are
    // written here (local state, git-ignored like .tix/s3).
    MAIL_DIR: baseEnv.MAIL_DIR ?? path.join(REPO_ROOT, '.tix/mail'),
  };
  for (const name of SERVICE_NAMES) {
    fleetEnv[serviceAddressVariable(name)] = services.includes(name)
      ? `127.0.0.1:${port(name)}`
      : SERVICE_NOT_DEPLOYED;
    const url = databaseUrls[name];
    if (url) fleetEnv[serviceDatabaseVariable(name)] = url;
  }

  const managed: Managed[] = [];
  if (!baseEnv.S3_ENDPOINT) {
    const s3Port = options.s3Port ?? Number(baseEnv.S3_PORT ?? 9000);
    Object.assign(fleetEnv, {
      S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
      S3_REGION: 'us-east-1',
    });
    managed.push({
      ...freshCounters(),
      name: 's3',
      entry: path.join(REPO_ROOT, 'deploy/local/src/s3-server.ts'),
      env: {
        ...fleetEnv,
        S3_PORT: String(s3Port),
        S3_DATA_DIR: options.s3DataDir ?? path.join(REPO_ROOT, '.tix/s3'),
      },
    });
  }
  for (const name of services) {
    managed.push({
      ...freshCounters(),
      name,
      entry: path.join(serviceDir(name), 'src/main.ts'),
      env: {
        ...fleetEnv,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(port(name)),
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort(name)),
      },
    });
  }
  managed.push({
    ...freshCounters(),
    name: 'gateway',
    entry: path.join(REPO_ROOT, 'gateway/src/main.ts'),
    env: {
      ...fleetEnv,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort('gateway')),
    },
  });
  for (const name of ['gateway', ...services] as const) {
    if (metricsPort(name) !== 0) metricsUrls[name] = `http://127.0.0.1:${metricsPort(name)}/metrics`;
  }

  let stopping = false;
  let ready = false;
  const crashes: ProcessCrash[] = [];
  let reportExit: (value: { name: string; code: number | null }) => void = () => undefined;
  const exited = new Promise<{ name: string; code: number | null }>((resolve) => (reportExit = resolve));
  const output = options.logOutput === undefined ? process.stdout : options.logOutput;

  const launch = (process_: Managed, index: number) => {
    const env = { ...process_.env, TIX_RESTART_COUNT: String(process_.restarts) };
    const child = spawn(process.execPath, [...extraNodeFlags(baseEnv), ...TSX_ARGS, process_.entry], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    process_.child = child;
    process_.startedAt = Date.now();
    if (output) {
      prefixLines(process_.name, index, child.stdout, output, options.pretty ?? false);
      prefixLines(process_.name, index, child.stderr, output, options.pretty ?? false);
    } else {
      child.stdout.resume();
      child.stderr.resume();
    }
    child.on('exit', (code, signal) => {
      if (process_.child !== child || stopping) return; // replaced by restart()/kill(), or stopping
      crashes.push({ name: process_.name, code, signal, at: Date.now() });
      if (!ready) {
        logger.error({ process: process_.name, code, signal }, `${process_.name} exited`);
        reportExit({ name: process_.name, code });
        return;
      }
      if (Date.now() - process_.startedAt >= RESTART_BACKOFF_RESET_MS) process_.consecutiveCrashes = 0;
      process_.consecutiveCrashes += 1;
      const delayMs = restartBackoffMs(process_.consecutiveCrashes);
      logger.error(
        { process: process_.name, code, signal, restart_in_ms: delayMs, restarts: process_.restarts },
        `!!! ${process_.name} CRASHED (exit ${signal ?? code}); restarting it in ${delayMs / 1000} s !!!`,
      );
      process_.restartTimer = setTimeout(() => {
        process_.restartTimer = undefined;
        if (stopping || process_.child !== child) return;
        process_.restarts += 1;
        launch(process_, index);
      }, delayMs);
    });
  };
  managed.forEach(launch);

  const terminate = async (process_: Managed, graceMs: number, signal: NodeJS.Signals = 'SIGTERM') => {
    const child = process_.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  };

  const fleet: RunningFleet = {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    appUrl: `http://127.0.0.1:${appPort}`,
    metricsUrls,
    env: fleetEnv,
    services,
    exited,
    crashes,
    async stop(graceMs = 15_000) {
      stopping = true;
      for (const process_ of managed) clearTimeout(process_.restartTimer);
      // The gateway first (no new requests), then the services, then the store.
      const gateway = managed.filter((m) => m.name === 'gateway');
      await Promise.all(gateway.map((m) => terminate(m, graceMs)));
      await Promise.all(managed.filter((m) => m.name !== 'gateway').map((m) => terminate(m, graceMs)));
    },
    pid(name) {
      return managed.find((m) => m.name === name)?.child?.pid;
    },
    async kill(name, signal = 'SIGTERM') {
      const process_ = managed.find((m) => m.name === name);
      if (!process_) throw new Error(`no process named ${name}`);
      clearTimeout(process_.restartTimer);
      const child = process_.child;
      process_.child = undefined;
      if (child && child.exitCode === null && child.signalCode === null) {
        const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill(signal);
        await done;
      }
    },
    async restart(name) {
      await fleet.kill(name);
      const index = managed.findIndex((m) => m.name === name);
      launch(managed[index]!, index);
    },
  };

  try {
    await waitForReady(fleet.apiUrl, options.readyTimeoutMs ?? 60_000, exited);
    ready = true;
  } catch (error) {
    await fleet.stop(2_000);
    throw error;
  }
  return fleet;
}

function freshCounters(): Pick<Managed, 'restarts' | 'consecutiveCrashes' | 'startedAt'> {
  return { restarts: 0, consecutiveCrashes: 0, startedAt: 0 };
}

/** Polls GET /readyz until it answers 200; fails early if a process exits. */
async function waitForReady(
  apiUrl: string,
  timeoutMs: number,
  exited: Promise<{ name: string; code: number | null }>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let crashed: { name: string; code: number | null } | undefined;
  void exited.then((value) => (crashed = value));
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (crashed)
      throw new Error(`${crashed.name} exited with code ${crashed.code} before the fleet was ready`);
    try {
      const response = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the fleet was not ready within ${timeoutMs} ms (last /readyz: ${last})`);
}
