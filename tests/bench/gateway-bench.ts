/**
 * `pnpm bench --only gateway`: what rate limiting and idempotency cost the gateway. The fleet runs on
 * free ports (fresh databases and vhost); two extra gateway processes serve the same services, the
 * same environment except the limits:
 * - on: REDIS_URL set, rate limits on with limits far above the load (1e9 per 60 s: every request is
 *   counted in Redis, none is refused), Idempotency-Key handling on;
 * - off: RATE_LIMITS_ENABLED=false, IDEMPOTENCY_ENABLED=false.
 * Operations, each with autocannon, the two gateways interleaved per round (on first in odd rounds):
 * - projects: GET /v1/projects (authentication, one lookup call: the cheap path, where the limiter's
 *   Redis round trip weighs most);
 * - create: POST /v1/tickets with a fresh Idempotency-Key per request (claim + store in Redis on).
 * Reported: median req/s, p50/p99 per gateway, and on/off; target: cost (1 - on/off) under 15%.
 * Then the compression scenario on the limits-off gateway (gateway-compression.ts): the ticket list
 * at several page sizes without Accept-Encoding, with gzip and with br: req/s, gateway CPU per
 * request and bytes on the wire, as ratios against the uncompressed answer of the same run.
 *
 *   pnpm bench --only gateway [--rounds 5] [--duration 10] [--connections 32] [--warmup 3]
 *                             [--scenarios limits,compression] [--page-sizes 1,2,5,20,100]
 *                             [--log-level error] [--out tests/bench/results/gateway-latest.json]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { createLogger, createServiceClient, dropDatabase } from '@tix/kit';
import { createTestVhost, eventually, freePort } from '@tix/kit/testing';
import { REPO_ROOT } from '@tix/local/fleet-layout';
import { extraNodeFlags, startFleet } from '@tix/local/launcher';
import { serviceDatabaseUrls } from '@tix/local/migrate';
import {
  SERVICE_NAMES,
  serviceAddressVariable,
  serviceDatabaseVariable,
  type ServiceName,
} from '@tix/protos';
import { teardownOnSignal, type Teardown } from './environment.js';
import {
  DEFAULT_PAGE_SIZES,
  formatCompressionTable,
  formatCompressorTable,
  measureCompressorCost,
  runCompressionScenario,
  seedListTickets,
} from './gateway-compression.js';
import { median } from './measure.js';
import { positiveInt, readBenchCommandLine, type BenchRunOptions } from './command-line.js';

export const GATEWAY_COST_TARGET = 0.15;
const OPERATIONS = ['projects', 'create'] as const;
type Operation = (typeof OPERATIONS)[number];
type Mode = 'on' | 'off';
const SCENARIOS = ['limits', 'compression'] as const;
type Scenario = (typeof SCENARIOS)[number];

/** Limits high enough that the bench is never refused, for every gateway the benches start. */
export const UNTHROTTLED_LIMITS_ENV = {
  RATE_LIMIT_API_KEY: '1000000000/60',
  RATE_LIMIT_SESSION: '1000000000/60',
  RATE_LIMIT_ANONYMOUS: '1000000000/60',
  RATE_LIMIT_AUTH: '1000000000/60',
  // Every spec route limit the benches drive (status moves, suggestions, searches).
  RATE_LIMIT_ROUTES: ['/tickets/*/status', '/ai/suggest-reply', '/search/*', '/search/ai']
    .map((route) => `${route}=1000000000/60`)
    .join(','),
} as const;

interface GatewayBenchOptions extends BenchRunOptions {
  rounds: number;
  duration: number;
  connections: number;
  warmup: number;
  scenarios: Scenario[];
  /** The compression scenario's page sizes (tickets per list). */
  pageSizes: number[];
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseGatewayOptions(argv: string[]): GatewayBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: { rounds: 5, duration: 10, connections: 32, warmup: 3 },
    texts: ['scenarios', 'page-sizes'],
    results: 'gateway-latest.json',
  });
  const scenarios = (args.text.scenarios ?? SCENARIOS.join(',')).split(',').map((item) => item.trim());
  const unknown = scenarios.filter((item) => !(SCENARIOS as readonly string[]).includes(item));
  if (unknown.length > 0 || scenarios.length === 0) {
    throw new Error(`--scenarios takes a comma list of ${SCENARIOS.join(', ')} (got ${unknown.join(', ')})`);
  }
  const pageSizes = (args.text['page-sizes'] ?? DEFAULT_PAGE_SIZES.join(','))
    .split(',')
    .map((item) => positiveInt('page-sizes', item.trim(), 1));
  if (pageSizes.some((size) => size > 100)) throw new Error('--page-sizes: at most 100 tickets a page');
  return {
    ...args.integer,
    scenarios: SCENARIOS.filter((scenario) => scenarios.includes(scenario)),
    pageSizes,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench gateway] ${message}\n`);
}

/** Starts gateway/src/main.ts with `env`; resolves with its API origin and pid once /readyz answers 200. */
async function startGatewayProcess(
  teardown: Teardown,
  name: Mode,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; pid: number }> {
  const apiPort = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [...extraNodeFlags(process.env), '--import', 'tsx', path.join(REPO_ROOT, 'gateway/src/main.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...env,
        GATEWAY_API_PORT: String(apiPort),
        GATEWAY_APP_PORT: String(await freePort()),
        METRICS_PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  teardown.add(`stop the ${name} gateway`, async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const url = `http://127.0.0.1:${apiPort}`;
  await eventually(
    () =>
      fetch(`${url}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      ),
    30_000,
    100,
  );
  return { url, pid: child.pid! };
}

interface Sample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

async function measure(
  url: string,
  operation: Operation,
  apiKey: string,
  ticketTypeId: number,
  options: { connections: number; duration: number },
): Promise<Sample> {
  let counter = 0;
  const requests: autocannon.Request[] =
    operation === 'projects'
      ? [{ method: 'GET', path: '/v1/projects' }]
      : [
          {
            method: 'POST',
            path: '/v1/tickets',
            setupRequest: (request) => {
              counter += 1;
              return {
                ...request,
                headers: { ...request.headers, 'idempotency-key': randomUUID() },
                body: JSON.stringify({ ticket_type_id: ticketTypeId, title: `Gateway bench ${counter}` }),
              };
            },
          },
        ];
  const result = await (autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    timeout: 30,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    requests,
  }) as Promise<autocannon.Result> & autocannon.Instance);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Limits on against off: projects and create, the two gateways interleaved per round. */
async function runLimitsScenario(
  urls: Record<Mode, string>,
  apiKey: string,
  ticketTypeId: number,
  options: GatewayBenchOptions,
) {
  const ready = (await fetch(`${urls.on}/readyz`).then((response) => response.json())) as {
    data: { rate_limits: string };
  };
  if (ready.data.rate_limits !== 'redis')
    throw new Error(`limits are not in Redis: ${ready.data.rate_limits}`);

  const samples: Record<Operation, Record<Mode, Sample[]>> = {
    projects: { on: [], off: [] },
    create: { on: [], off: [] },
  };
  for (const operation of OPERATIONS) {
    if (options.warmup > 0) {
      for (const mode of ['on', 'off'] as const) {
        await measure(urls[mode], operation, apiKey, ticketTypeId, { ...options, duration: options.warmup });
      }
    }
    for (let round = 1; round <= options.rounds; round += 1) {
      const order: Mode[] = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
      for (const mode of order) {
        const sample = await measure(urls[mode], operation, apiKey, ticketTypeId, options);
        samples[operation][mode].push(sample);
        log(
          `${operation} round ${round} ${mode}: ${Math.round(sample.requestsPerSecond)} req/s, ` +
            `p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms` +
            (sample.non2xx + sample.errors > 0 ? `, ${sample.non2xx + sample.errors} FAILED` : ''),
        );
      }
    }
  }

  const summary = Object.fromEntries(
    OPERATIONS.map((operation) => {
      const of = (mode: Mode) => {
        const list = samples[operation][mode];
        return {
          requestsPerSecond: Math.round(median(list.map((sample) => sample.requestsPerSecond))),
          p50Ms: median(list.map((sample) => sample.p50Ms)),
          p99Ms: median(list.map((sample) => sample.p99Ms)),
          failures: list.reduce((sum, sample) => sum + sample.non2xx + sample.errors, 0),
        };
      };
      const on = of('on');
      const off = of('off');
      const ratio = on.requestsPerSecond / off.requestsPerSecond;
      return [operation, { on, off, ratio, cost: 1 - ratio, met: 1 - ratio < GATEWAY_COST_TARGET }];
    }),
  );
  const lines = ['', '| Operation | on req/s | off req/s | on/off | cost | on p50/p99 ms | off p50/p99 ms |'];
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [operation, figures] of Object.entries(summary)) {
    const { on, off, ratio, cost } = figures;
    lines.push(
      `| ${operation} | ${on.requestsPerSecond} | ${off.requestsPerSecond} | ${(ratio * 100).toFixed(1)}% | ` +
        `${(cost * 100).toFixed(1)}% | ${on.p50Ms} / ${on.p99Ms} | ${off.p50Ms} / ${off.p99Ms} |`,
    );
  }
  process.stderr.write(`${lines.join('\n')}\n\n`);
  const failed = Object.values(summary).some((figures) => figures.on.failures + figures.off.failures > 0);
  return { summary, samples, failed };
}

/** Runs the gateway bench and prints / writes its figures. */
export async function runGatewayBench(argv: string[]): Promise<void> {
  const options = parseGatewayOptions(argv);
  const startedAt = new Date();
  const teardown = teardownOnSignal(log);
  try {
    log('starting the fleet');
    const vhost = await createTestVhost('bench_gateway');
    teardown.add('delete the RabbitMQ vhost', () => vhost.drop());
    const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'tix-bench-gw-s3-'));
    teardown.add('remove the S3 data folder', () => rm(s3Dir, { recursive: true, force: true }));
    const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...UNTHROTTLED_LIMITS_ENV,
      AMQP_URL: vhost.url,
      LOG_LEVEL: options.logLevel,
      REDIS_URL: redisUrl,
      // Its own Redis keys: windows expire within a minute, idempotency records within an hour.
      LIMITS_REDIS_PREFIX: `tix:bench:${randomBytes(4).toString('hex')}:`,
    };
    for (const name of SERVICE_NAMES) delete env[serviceDatabaseVariable(name)];
    delete env.S3_ENDPOINT;
    const databasePrefix = `bench_gw_${randomBytes(3).toString('hex')}_`;
    const databaseUrls = Object.values(serviceDatabaseUrls(env, databasePrefix));
    teardown.add('drop the fleet databases', async () => {
      for (const url of databaseUrls) await dropDatabase(url);
    });
    const servicePorts: Partial<Record<ServiceName, number>> = {};
    for (const name of SERVICE_NAMES) servicePorts[name] = await freePort();
    const fleet = await startFleet({
      env,
      apiPort: await freePort(),
      appPort: await freePort(),
      servicePorts,
      s3Port: await freePort(),
      s3DataDir: s3Dir,
      databasePrefix,
      logger: createLogger({ service: 'bench', level: options.logLevel }),
      logOutput: process.stderr,
    });
    teardown.add('stop the fleet', () => fleet.stop());

    const lookup = createServiceClient('lookup', fleet.env[serviceAddressVariable('lookup')]!, {
      deadlineMs: 10_000,
    });
    teardown.add('close the lookup client', () => Promise.resolve(lookup.close()));
    const context = { correlationId: `bench-${randomBytes(4).toString('hex')}` };
    const suffix = randomBytes(3).toString('hex');
    const project = await lookup.CreateProject(
      { name: `Gateway bench ${suffix}`, slug: `gw-${suffix}`, prefix: 'GWB', description: '', statuses: [] },
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
      { name: 'Gateway bench', email: `gw-bench-${suffix}@example.com`, role: 'agent' },
      context,
    );
    const key = await lookup.CreateApiKey(
      { user_id: user.id, scopes: ['tickets:read', 'tickets:write'], project_id: project.id, name: 'bench' },
      context,
    );

    const limits = options.scenarios.includes('limits');
    log(limits ? 'starting the two gateways (limits on, limits off)' : 'starting the limits-off gateway');
    const off = await startGatewayProcess(teardown, 'off', {
      ...fleet.env,
      RATE_LIMITS_ENABLED: 'false',
      IDEMPOTENCY_ENABLED: 'false',
    });
    const summary: Record<string, unknown> = {};
    const samples: Record<string, unknown> = {};
    let failed = false;
    if (limits) {
      const urls: Record<Mode, string> = {
        on: (await startGatewayProcess(teardown, 'on', { ...fleet.env, RATE_LIMITS_ENABLED: 'true' })).url,
        off: off.url,
      };
      const limitsRun = await runLimitsScenario(urls, key.key, type.id, options);
      Object.assign(summary, limitsRun.summary);
      Object.assign(samples, limitsRun.samples);
      failed ||= limitsRun.failed;
    }
    let compression: Awaited<ReturnType<typeof runCompressionScenario>> | undefined;
    let compressor: Awaited<ReturnType<typeof measureCompressorCost>> | undefined;
    if (options.scenarios.includes('compression')) {
      const most = Math.max(...options.pageSizes);
      log(`compression: filing ${most} tickets to list`);
      await seedListTickets(off.url, key.key, type.id, most);
      compression = await runCompressionScenario({
        url: off.url,
        pid: off.pid,
        apiKey: key.key,
        pageSizes: options.pageSizes,
        rounds: options.rounds,
        duration: options.duration,
        warmup: options.warmup,
        connections: options.connections,
        log,
      });
      log('compression: the compressor alone on each page');
      compressor = await measureCompressorCost({
        url: off.url,
        apiKey: key.key,
        pageSizes: options.pageSizes,
        rounds: options.rounds,
      });
      process.stderr.write(`\n${formatCompressionTable(compression.figures)}\n\n`);
      process.stderr.write(`${formatCompressorTable(compressor)}\n\n`);
      failed ||= compression.figures.some((figure) => figure.failures > 0);
    }
    const result = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      options: { ...options, out: undefined },
      target: { maxCost: GATEWAY_COST_TARGET },
      summary,
      compression: compression ? { fleet: compression.figures, compressor } : undefined,
      samples: { ...samples, ...(compression ? { compression: compression.samples } : {}) },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${options.out}`);
    if (failed) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}
