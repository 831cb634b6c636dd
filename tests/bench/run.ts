/**
 * `pnpm bench`: the fleet (through the gateway, with a real API key) against a minimal Express + pg
 * baseline on the same database, for get one ticket, list 50, create and board, on a project seeded
 * with 100,000 tickets. See docs/benchmarks.md for the method.
 *
 *   pnpm bench [--rounds 5] [--duration 10] [--connections 32] [--low-connections 4]
 *              [--only get,list,page-deep,...] [--tickets 100000] [--projects 1] [--deep-page 2000]
 *              [--list-pages 20] [--warmup 3]
 *              [--baseline-only] [--baseline-prepared] [--log-level error]
 *              [--out tests/bench/results/latest.json]
 *
 * Order: set up (fleet + fixtures, or a bare database), seed, start the baseline, check that both
 * answer the same shapes, warm up, then R rounds of each operation with the two targets interleaved
 * (fleet first in odd rounds, baseline first in even ones), then the low-concurrency pass for list
 * and board.
 *
 * The scale scenarios (docs/benchmarks.md, "At scale"): `--tickets 1000000 --projects 5` seeds a
 * million tickets over five projects by bulk SQL (seed.ts) and adds, each against the baseline: the
 * deep page by offset (and by cursor, fleet only), lists filtered by status, assignee and tag, `q`
 * for a rare and a common word (bytes per answer shown), the board filtered by assignee and bulk
 * updates of 100. Any non-2xx answer makes the bench exit 1. Tickets made by create runs are
 * removed after each run, and the fleet's outbox is drained, so that every run starts from the same
 * data with nothing running in the background.
 */
import pg from 'pg';
import { createLogger, databaseName, type LogLevel } from '@tix/kit';
import { runUploadsBench } from './attachments-memory.js';
import { startBaselineProcess } from './baseline-process.js';
import { cpuSnapshot, waitUntilQuiet } from './cpu-usage.js';
import {
  startBaselineOnlyEnvironment,
  startFleetEnvironment,
  Teardown,
  type BenchEnvironment,
} from './environment.js';
import {
  FLEET_ONLY,
  LIST_PER_PAGE,
  measure,
  OPERATIONS,
  WRITES,
  summarize,
  type Operation,
  type Sample,
  type Target,
  type Workload,
} from './measure.js';
import {
  describeMachine,
  failureWarnings,
  formatReport,
  writeResult,
  type BenchResult,
  type PerTarget,
} from './report.js';
import {
  COMMON_TAG,
  COMMON_WORD,
  RARE_WORD,
  removeCreatedTickets,
  seedPlanOf,
  seedProjects,
} from './seed.js';
import { checkShapes } from './shape-check.js';
import { runGatewayBench, UNTHROTTLED_LIMITS_ENV } from './gateway-bench.js';
import { runWebhookBench } from './webhooks-bench.js';
import { runMailBench } from './mail-bench.js';
import { runActivityBench } from './activity-bench.js';
import { runAssistBench } from './assist-bench.js';
import { cursorOfPage, runListPagesBench } from './list-pages-bench.js';
import { asksFor, readBenchCommandLine } from './command-line.js';

interface BenchOptions {
  rounds: number;
  duration: number;
  connections: number;
  lowConnections: number;
  only: Operation[];
  tickets: number;
  /** Projects the tickets are spread over (the first is measured; the others only fill the table). */
  projects: number;
  /** The page the deep-page scenarios read (capped at the measured project's last page). */
  deepPage: number;
  listPages: number;
  warmup: number;
  baselineOnly: boolean;
  /** The baseline sends its SQL as named (prepared) statements too, as the ticket service does. */
  baselinePrepared: boolean;
  logLevel: LogLevel;
  out: string;
}

/** Reads the command line; throws a usage message naming the bad option. */
export function parseOptions(argv: string[]): BenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: {
      rounds: 5,
      duration: 10,
      connections: 32,
      'low-connections': 4,
      tickets: 100_000,
      projects: 1,
      'deep-page': 2_000,
      'list-pages': 20,
      warmup: 3,
    },
    flags: ['baseline-only', 'baseline-prepared'],
    results: 'latest.json',
  });
  const only = (args.only ?? OPERATIONS.join(',')).split(',').map((item) => item.trim());
  const unknown = only.filter((item) => !(OPERATIONS as readonly string[]).includes(item));
  if (unknown.length > 0 || only.length === 0) {
    throw new Error(`--only takes a comma list of ${OPERATIONS.join(', ')} (got ${unknown.join(', ')})`);
  }
  const { tickets, projects } = args.integer;
  if (projects > tickets) throw new Error('--projects cannot exceed --tickets');
  return {
    rounds: args.integer.rounds,
    duration: args.integer.duration,
    connections: args.integer.connections,
    lowConnections: args.integer['low-connections'],
    only: OPERATIONS.filter((operation) => only.includes(operation)),
    tickets,
    projects,
    deepPage: args.integer['deep-page'],
    listPages: Math.min(args.integer['list-pages'], Math.ceil(tickets / 50)),
    warmup: args.integer.warmup,
    baselineOnly: args.flag['baseline-only'],
    baselinePrepared: args.flag['baseline-prepared'],
    logLevel: args.logLevel,
    out: args.out,
  };
}

/** How long the fleet's event consumers get to catch up after a write run before the next run. */
const WRITE_SETTLE_MS = 300_000;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function describeSample(sample: Sample): string {
  const failures = sample.non2xx + sample.errors;
  return (
    `${Math.round(sample.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${sample.p50Ms} ms, ` +
    `p99 ${sample.p99Ms} ms${failures > 0 ? `, ${failures} FAILED (${JSON.stringify(sample.failedStatuses)})` : ''}`
  );
}

/** Waits until the fleet's relay has published everything the create runs wrote (max 60 s). */
async function drainOutbox(pool: pg.Pool): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { rows } = await pool.query<{ pending: number }>(
      'SELECT count(*)::int AS pending FROM outbox_events WHERE published_at IS NULL',
    );
    if (rows[0]!.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log('warning: the outbox still had unpublished events after 60 s');
}

/** The benches that are a run of their own, by their `--only` name. */
const OWN_RUNS: Record<string, (argv: string[]) => Promise<void>> = {
  // Rate limiting + idempotency on vs off (gateway-bench.ts).
  gateway: runGatewayBench,
  // The attachment memory bench (attachments-memory.ts).
  uploads: runUploadsBench,
  // The webhook latency and throughput bench (webhooks-bench.ts).
  webhooks: runWebhookBench,
  // The activity feed's reads, polling and lag (activity-bench.ts).
  activity: runActivityBench,
  // Suggested replies, search and the corpus lag at 100,000 documents (assist-bench.ts).
  assist: runAssistBench,
  // A deep page of the ticket list, offset against cursor (list-pages-bench.ts).
  'list-pages': runListPagesBench,
  // Inbound mail to ticket over SMTP and IMAP IDLE, and messages per second (mail-bench.ts).
  mail: runMailBench,
};

async function main(): Promise<void> {
  // Every bench drives one key far past the spec's 100 requests/min: the fleets they start inherit
  // limits that never refuse (the gateway bench measures what counting costs).
  Object.assign(process.env, UNTHROTTLED_LIMITS_ENV);
  const own = Object.entries(OWN_RUNS).find(([name]) => asksFor(process.argv.slice(2), name));
  if (own) return own[1](process.argv.slice(2));
  const options = parseOptions(process.argv.slice(2));
  const teardown = new Teardown();
  let stopRun: (() => void) | undefined;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping and cleaning up`);
    stopRun?.();
    void teardown.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const startedAt = new Date();
  try {
    log(options.baselineOnly ? 'creating a database for the baseline alone' : 'starting the fleet');
    const environment: BenchEnvironment = options.baselineOnly
      ? await startBaselineOnlyEnvironment(teardown)
      : await startFleetEnvironment(teardown, {
          logLevel: options.logLevel,
          logger: createLogger({ service: 'bench', level: options.logLevel }),
        });
    const pool = new pg.Pool({ connectionString: environment.ticketsDatabaseUrl, max: 2 });
    teardown.add('close the bench database pool', () => pool.end());
    const postgres = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;

    log(`seeding ${options.tickets.toLocaleString('en-US')} tickets over ${options.projects} project(s)`);
    // The other projects take ids no project of the fleet has (they exist in the tickets table only).
    const seeded = await seedProjects(
      pool,
      seedPlanOf(environment, options.tickets),
      options.projects,
      1_000_000,
    );
    const projectTickets = seeded.lastId - seeded.firstId + 1;
    const deepPage = Math.min(options.deepPage, Math.ceil(projectTickets / LIST_PER_PAGE));
    log(
      `seeded in ${(seeded.milliseconds / 1000).toFixed(1)} s (measured project: ${projectTickets} tickets)`,
    );

    const baseline = await startBaselineProcess({
      connectionString: environment.ticketsDatabaseUrl,
      project: environment.project,
      apiKey: environment.apiKey,
      userId: environment.userId,
      prepared: options.baselinePrepared,
    });
    teardown.add('stop the baseline', () => baseline.stop());
    const databases = environment.databaseUrls.map(databaseName);
    const snapshot = async () => {
      const { rows } = await pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()',
        [databases],
      );
      return cpuSnapshot(rows.map((row) => row.pid));
    };
    const targets: Target[] = [
      ...(environment.fleetUrl
        ? [{ name: 'fleet' as const, url: environment.fleetUrl, apiKey: environment.apiKey }]
        : []),
      { name: 'baseline', url: baseline.url, apiKey: environment.apiKey },
    ];
    // The baseline lists by offset only: fleet-only operations are measured on the fleet alone.
    const targetsOf = (operation: Operation) =>
      FLEET_ONLY.includes(operation) ? targets.filter((target) => target.name === 'fleet') : targets;

    // The cursor of the deep page, walked once as a client would (the baseline has no cursor).
    let deepCursor = '';
    let cursorWalkMs: number | undefined;
    const fleetTarget = targets.find((target) => target.name === 'fleet');
    const only = fleetTarget
      ? options.only
      : options.only.filter((operation) => !FLEET_ONLY.includes(operation));
    if (fleetTarget && only.includes('cursor-deep')) {
      log(`walking the fleet's cursor to page ${deepPage}`);
      const walked = await cursorOfPage(fleetTarget.url, fleetTarget.apiKey, deepPage, LIST_PER_PAGE);
      deepCursor = walked.cursor;
      cursorWalkMs = walked.walkMs;
    }
    const workload: Workload = {
      ticketTypeId: environment.ticketTypeId,
      firstId: seeded.firstId,
      lastId: seeded.lastId,
      listPages: options.listPages,
      deepPage,
      deepCursor,
      status: environment.project.statuses[0]!.slug,
      assigneeId: environment.assigneeIds[0] ?? environment.userId,
      tag: COMMON_TAG,
      rareWord: RARE_WORD,
      commonWord: COMMON_WORD,
    };
    const warnings = await checkShapes(targets, only, workload);
    if (!environment.fleetUrl) warnings.push('--baseline-only: the fleet was not measured');

    /** One autocannon run; afterwards the data is put back and background work allowed to finish. */
    const run = async (target: Target, operation: Operation, connections: number, seconds: number) => {
      if (interrupted) throw new Error('interrupted');
      const sample = await measure(target, operation, workload, {
        connections,
        durationSeconds: seconds,
        onStart: (stop) => (stopRun = stop),
        cpuSnapshot: snapshot,
      });
      stopRun = undefined;
      if (interrupted) throw new Error('interrupted');
      // Bulk updates only change priorities of seeded tickets (the spread stays about the same).
      if (WRITES.includes(operation)) {
        if (target.name === 'fleet') await drainOutbox(pool);
        await removeCreatedTickets(pool, environment.project.id, seeded.lastId);
      }
      // After writes the fleet's consumers (activity, webhooks, the assistant's predictions) still
      // work through their events, for minutes after a bulk run: measured reads must not pay for it.
      const settled = await waitUntilQuiet(
        snapshot,
        WRITES.includes(operation) ? WRITE_SETTLE_MS : undefined,
      );
      if (WRITES.includes(operation) && target.name === 'fleet') {
        log(
          `${operation}: the fleet's consumers settled in ${(settled.waitedMs / 1000).toFixed(1)} s` +
            (settled.quiet ? '' : ' (still busy: later runs share the CPU with them)'),
        );
      }
      return sample;
    };
    await removeCreatedTickets(pool, environment.project.id, seeded.lastId);

    if (options.warmup > 0) {
      log(`warming up (${options.warmup} s per operation and target)`);
      for (const operation of only) {
        for (const target of targetsOf(operation))
          await run(target, operation, options.connections, options.warmup);
      }
    }

    /** Rounds of every operation, the targets interleaved; returns the medians per operation. */
    const pass = async (label: string, operations: Operation[], connections: number) => {
      const samples = new Map<string, Sample[]>();
      for (let round = 1; round <= options.rounds; round += 1) {
        for (const operation of operations) {
          const ordered = round % 2 === 1 ? targetsOf(operation) : [...targetsOf(operation)].reverse();
          for (const target of ordered) {
            const sample = await run(target, operation, connections, options.duration);
            log(
              `${label} round ${round}/${options.rounds} ${operation.padEnd(6)} ${target.name.padEnd(8)} ` +
                describeSample(sample),
            );
            const key = `${operation}/${target.name}`;
            samples.set(key, [...(samples.get(key) ?? []), sample]);
          }
        }
      }
      const results: Partial<Record<Operation, PerTarget>> = {};
      for (const operation of operations) {
        const perTarget: PerTarget = {};
        for (const target of targetsOf(operation)) {
          perTarget[target.name] = summarize(samples.get(`${operation}/${target.name}`)!);
        }
        results[operation] = perTarget;
      }
      return results;
    };

    // The latency pass first: after the main pass's bulk updates the fleet's consumers can stay
    // busy for minutes, and a p99 must not measure them.
    const lowOperations = only.filter((operation) => operation === 'list' || operation === 'board');
    const lowConcurrency =
      lowOperations.length > 0
        ? await pass(`${options.lowConnections}c`, lowOperations, options.lowConnections)
        : {};
    const results = await pass(`${options.connections}c`, only, options.connections);

    const result: BenchResult = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: describeMachine(`PostgreSQL ${postgres}`),
      options: { ...options, out: undefined },
      seeding: {
        tickets: options.tickets,
        milliseconds: Math.round(seeded.milliseconds),
        ticketsPerSecond: Math.round(options.tickets / (seeded.milliseconds / 1000)),
        projects: options.projects,
        projectTickets,
        deepPage,
        ...(cursorWalkMs === undefined ? {} : { cursorWalkMs: Math.round(cursorWalkMs) }),
      },
      results,
      lowConcurrency,
      warnings: [
        ...warnings,
        ...failureWarnings(`${options.connections}c`, results),
        ...failureWarnings(`${options.lowConnections}c`, lowConcurrency),
      ],
    };
    process.stdout.write(formatReport(result));
    log(`wrote ${await writeResult(result, options.out)}`);
    // Any non-2xx answer or connection error in any run fails the bench.
    if (result.warnings.some((warning) => warning.includes('non-2xx'))) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
