/**
 * The measurements of `pnpm bench --only activity` (activity-bench.ts):
 * - scenarios: autocannon runs of named request plans, in interleaved rounds (the order reversed
 *   every other round, as run.ts does for fleet and baseline), with the CPU each process spent;
 * - lag: ticket writes through the API at a fixed rate, and how long each took to become an entry.
 */
import autocannon from 'autocannon';
import type pg from 'pg';
import { cpuUse, waitUntilQuiet, type CpuByGroup, type CpuSnapshot } from './cpu-usage.js';
import { summarize, type Sample, type Summary } from './measure.js';
import { quantile } from './webhooks-measure.js';

/** One request plan against one host. */
export interface Scenario {
  name: string;
  /** Origin: the API host (API key) or the session host (cookie). */
  url: string;
  headers: Record<string, string>;
  requests: autocannon.Request[];
  /** The answers that count as success (a poll with an unchanged cursor expects 304). */
  accepted: number[];
}

export interface ScenarioOptions {
  rounds: number;
  duration: number;
  connections: number;
  /** Seconds of unrecorded load per scenario before the rounds (0: none). */
  warmup: number;
  snapshot: () => Promise<CpuSnapshot | undefined>;
  log: (message: string) => void;
}

/**
 * One autocannon run. `non2xx` and `failedStatuses` count the answers outside `accepted`, so a
 * poll's 304s are successes and a 200 where a 304 was expected is a failure.
 */
async function load(scenario: Scenario, options: ScenarioOptions, seconds: number): Promise<Sample> {
  const cpuBefore = await options.snapshot();
  // Without a callback autocannon returns its Instance made thenable (the types only say Promise).
  const result = await (autocannon({
    url: scenario.url,
    connections: options.connections,
    duration: seconds,
    timeout: 30,
    headers: scenario.headers,
    requests: scenario.requests,
  }) as Promise<autocannon.Result> & autocannon.Instance);
  const cpuAfter = await options.snapshot();
  const failedStatuses: Record<string, number> = {};
  let responses = 0;
  for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) {
    responses += count;
    if (!scenario.accepted.includes(Number(status)) && count > 0) failedStatuses[status] = count;
  }
  await waitUntilQuiet(options.snapshot);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    responses,
    non2xx: Object.values(failedStatuses).reduce((sum, count) => sum + count, 0),
    errors: result.errors,
    failedStatuses,
    ...(cpuBefore && cpuAfter ? { cpu: cpuUse(cpuBefore, cpuAfter, responses) } : {}),
  };
}

const describe = (sample: Sample) =>
  `${Math.round(sample.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${sample.p50Ms} ms, ` +
  `p99 ${sample.p99Ms} ms${sample.non2xx + sample.errors > 0 ? `, FAILED ${JSON.stringify(sample.failedStatuses)} / ${sample.errors} errors` : ''}`;

/** A warm-up, then `rounds` rounds of every scenario; the medians per scenario. */
export async function runScenarios(
  scenarios: Scenario[],
  options: ScenarioOptions,
): Promise<Record<string, Summary>> {
  if (options.warmup > 0) {
    for (const scenario of scenarios) await load(scenario, options, options.warmup);
  }
  const samples = new Map<string, Sample[]>(scenarios.map((scenario) => [scenario.name, []]));
  for (let round = 1; round <= options.rounds; round += 1) {
    const ordered = round % 2 === 1 ? scenarios : [...scenarios].reverse();
    for (const scenario of ordered) {
      const sample = await load(scenario, options, options.duration);
      options.log(
        `${options.connections}c round ${round}/${options.rounds} ${scenario.name.padEnd(10)} ${describe(sample)}`,
      );
      samples.get(scenario.name)!.push(sample);
    }
  }
  return Object.fromEntries([...samples].map(([name, taken]) => [name, summarize(taken)]));
}

/** Milliseconds at the usual quantiles, to 0.1 ms. */
export function spread(values: number[]): { p50Ms: number; p99Ms: number; maxMs: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    p50Ms: round(quantile(sorted, 0.5)),
    p99Ms: round(quantile(sorted, 0.99)),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** Ticket writes per bulk update: one every TICK_MS. */
const TICK_MS = 100;

export interface LagPlan {
  rate: number;
  duration: number;
  /** Seconds of unrecorded writes first (0: none). */
  warmup: number;
  /**
   * Tickets to write to, a slice per tick, round robin; `rate` of them, so each is written once a
   * second and never twice at once.
   */
  ticketIds: number[];
  /** POST /v1/tickets/bulk-update; answers the new version of each ticket updated. */
  bulkUpdate(ticketIds: number[], body: Record<string, string>): Promise<{ id: number; version: number }[]>;
  activityDb: pg.Pool;
  /** The ticket service's database: when its outbox relay published each event (where the lag arises). */
  ticketsDb: pg.Pool;
  snapshot: () => Promise<CpuSnapshot | undefined>;
}

/**
 * What the bulk update of a tick sets: the priority flips every round over the tickets, and every
 * other tick's tickets change status too, so every write changes something and half of them emit
 * two events (updated, status_changed) that must fold into one entry.
 */
function writeBody(tick: number, ticksPerRound: number): Record<string, string> {
  const even = Math.floor(tick / ticksPerRound) % 2 === 0;
  return {
    priority: even ? 'low' : 'high',
    ...(tick % 2 === 0 ? { status: even ? 'waiting' : 'open' } : {}),
  };
}

/** The highest lag_ms among the rows of each second since `startedAt` (a performance.now() value). */
function worstBySecond(rows: { occurred_ms: number; lag_ms: number }[], startedAt: number): number[] {
  const origin = Date.now() - (performance.now() - startedAt);
  const worst: number[] = [];
  for (const row of rows) {
    const second = Math.max(0, Math.floor((row.occurred_ms - origin) / 1000));
    worst[second] = Math.max(worst[second] ?? 0, Math.round(row.lag_ms));
  }
  return Array.from(worst, (value) => value ?? 0);
}

/** A CpuUse over one "request" (the whole window) as seconds per process. */
function cpuSeconds(use: { perRequestMs: CpuByGroup; machineBusy: number }) {
  const seconds = Object.entries(use.perRequestMs).map(([group, ms]) => [group, Math.round(ms / 10) / 100]);
  return {
    seconds: Object.fromEntries(seconds) as CpuByGroup,
    machineBusy: Math.round(use.machineBusy * 100) / 100,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Notes when each new entry becomes visible to a reader (polling the log every 10 ms), until
 * `done()`: the lag a poller of the feed sees, the consumer's lock wait and commit included.
 */
async function watchEntries(db: pg.Pool, after: number, seenAt: Map<string, number>, done: () => boolean) {
  let last = after;
  while (!done()) {
    const { rows } = await db.query<{ id: string; fold_key: string }>(
      'SELECT id, fold_key FROM activities WHERE id > $1 ORDER BY id',
      [last],
    );
    const now = Date.now();
    for (const row of rows) seenAt.set(row.fold_key, now);
    if (rows.length > 0) last = Number(rows[rows.length - 1]!.id);
    await sleep(10);
  }
}

/**
 * `plan.rate` ticket writes per second for `seconds`, as a bulk update every 100 ms sent on schedule
 * whatever the earlier ones are doing (an open loop). Ticks are numbered on from `firstTick`, so
 * every write still changes its ticket's values.
 */
async function writeAtRate(plan: LagPlan, firstTick: number, seconds: number) {
  const perTick = Math.max(1, Math.round((plan.rate * TICK_MS) / 1000));
  const ticksPerRound = Math.max(1, Math.floor(plan.ticketIds.length / perTick));
  const ticks = Math.round((seconds * 1000) / TICK_MS);
  const foldKeys: string[] = [];
  const apiMs: number[] = [];
  const failures: string[] = [];
  let late = 0;
  const calls: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; n < ticks; n += 1) {
    const wait = started + n * TICK_MS - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -TICK_MS) late += 1;
    const tick = firstTick + n;
    const slice = (tick % ticksPerRound) * perTick;
    const sent = performance.now();
    calls.push(
      plan.bulkUpdate(plan.ticketIds.slice(slice, slice + perTick), writeBody(tick, ticksPerRound)).then(
        (updated) => {
          apiMs.push(performance.now() - sent);
          for (const { id, version } of updated) foldKeys.push(`ticket:${id}:${version}`);
        },
        (error: unknown) => {
          failures.push(error instanceof Error ? error.message : String(error));
        },
      ),
    );
  }
  await Promise.all(calls);
  return { ticks, foldKeys, apiMs, failures, late, started, loadMs: performance.now() - started };
}

/** Waits until every one of `foldKeys` is an entry (at most 60 s). */
async function awaitEntries(db: pg.Pool, foldKeys: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ entries: number }>(
      'SELECT count(*)::int AS entries FROM activities WHERE fold_key = ANY($1)',
      [foldKeys],
    );
    if (rows[0]!.entries >= foldKeys.length) return;
    await sleep(100);
  }
}

/**
 * `plan.warmup` seconds of writes, unrecorded and worked off; then `plan.duration` seconds of them
 * (writeAtRate), and once every write's entry is there (at most 60 s), the lag of each from the
 * activity database, where it arose, and a count of the entries.
 */
export async function measureLag(plan: LagPlan) {
  const { activityDb, ticketsDb, ticketIds } = plan;
  const warm = plan.warmup > 0 ? await writeAtRate(plan, 0, plan.warmup) : undefined;
  if (warm) await awaitEntries(activityDb, warm.foldKeys);

  const since = new Date();
  const head = await activityDb.query<{ head: string }>(
    'SELECT coalesce(max(id), 0) AS head FROM activities',
  );
  const after = Number(head.rows[0]!.head);
  const seenAt = new Map<string, number>();
  let watching = true;
  const watcher = watchEntries(activityDb, after, seenAt, () => !watching);
  const cpuBefore = await plan.snapshot();
  const { ticks, foldKeys, apiMs, failures, late, started, loadMs } = await writeAtRate(
    plan,
    warm?.ticks ?? 0,
    plan.duration,
  );
  const deadline = Date.now() + 60_000;
  while (foldKeys.some((key) => !seenAt.has(key)) && Date.now() < deadline) await sleep(50);
  await sleep(500); // an extra entry, if any, shows up too
  watching = false;
  await watcher;
  const cpuAfter = await plan.snapshot();

  const { rows } = await activityDb.query<{ fold_key: string; occurred_ms: number; lag_ms: number }>(
    `SELECT fold_key, extract(epoch FROM occurred_at)::float8 * 1000 AS occurred_ms,
            extract(epoch FROM recorded_at - occurred_at)::float8 * 1000 AS lag_ms
       FROM activities WHERE fold_key = ANY($1)`,
    [foldKeys],
  );
  const published = await ticketsDb.query<{ lag_ms: number }>(
    `SELECT extract(epoch FROM published_at - (payload->>'occurred_at')::timestamptz)::float8 * 1000 AS lag_ms
       FROM outbox_events WHERE created_at >= $1 AND published_at IS NOT NULL`,
    [since],
  );
  const counted = await activityDb.query<{ entries: number }>(
    'SELECT count(*)::int AS entries FROM activities WHERE id > $1 AND ticket_id = ANY($2::int[])',
    [after, ticketIds],
  );
  const consumed = await activityDb.query<{ events: number; span_ms: number }>(
    `SELECT count(*)::int AS events, extract(epoch FROM max(recorded_at) - min(recorded_at))::float8 * 1000 AS span_ms
       FROM events WHERE recorded_at >= $1`,
    [since],
  );
  const { events, span_ms: spanMs } = consumed.rows[0]!;
  return {
    writes: foldKeys.length,
    writesPerSecond: Math.round((foldKeys.length / loadMs) * 1000 * 10) / 10,
    bulkUpdates: ticks,
    bulkUpdatesBehindSchedule: late,
    failedBulkUpdates: failures.length,
    failures: failures.slice(0, 3),
    bulkUpdateApi: spread(apiMs),
    /** Entries of the written tickets numbered after the load began: exactly one per write. */
    entries: counted.rows[0]!.entries,
    missing: foldKeys.length - rows.length,
    /**
     * Events the consumer recorded (a write emits one or two), per second from its first to its last:
     * the offered rate when it keeps up, its capacity when it falls behind.
     */
    consumer: { events, eventsPerSecond: Math.round(events / (spanMs / 1000)) },
    /** CPU seconds per process from the first write until every entry was there, and how busy the machine was. */
    cpu: cpuBefore && cpuAfter ? cpuSeconds(cpuUse(cpuBefore, cpuAfter, 1)) : undefined,
    /** The ticket service's part: outbox published_at - occurred_at, per event. */
    published: spread(published.rows.map((row) => row.lag_ms)),
    /** recorded_at - occurred_at; recorded_at is when the consumer's transaction began. */
    recorded: spread(rows.map((row) => row.lag_ms)),
    /** The worst recorded lag of the writes of each second of the load: growing when it cannot keep up. */
    worstBySecond: worstBySecond(rows, started),
    /** When the watcher first saw the entry - occurred_at (it polls every 10 ms: up to ~10 ms more). */
    visible: spread(
      rows.flatMap((row) => {
        const seen = seenAt.get(row.fold_key);
        return seen === undefined ? [] : [seen - row.occurred_ms];
      }),
    ),
  };
}
