/**
 * The measurements of `pnpm bench --only assist` (assist-bench.ts):
 * - latency: autocannon runs of named request plans in interleaved rounds (the order reversed every
 *   other round), every response timed, so that p95 (autocannon reports p90 and p97.5, not p95) is
 *   read from all the responses of all rounds, with the CPU each process spent;
 * - corpus lag: tickets created through the API at a fixed rate, and how long each took from its
 *   write (the ticket's updated_at) to its row in the assistant's corpus.
 */
import autocannon from 'autocannon';
import type pg from 'pg';
import type { Scenario } from './activity-measure.js';
import { cpuUse, waitUntilQuiet, type CpuSnapshot } from './cpu-usage.js';
import { summarize, type Sample, type Summary } from './measure.js';
import { quantile } from './webhooks-measure.js';

export interface LatencyOptions {
  rounds: number;
  duration: number;
  connections: number;
  /** Seconds of unrecorded load per scenario before the rounds (0: none). */
  warmup: number;
  snapshot: () => Promise<CpuSnapshot | undefined>;
  log: (message: string) => void;
}

export interface LatencySummary extends Summary {
  /** Over every response of every round, in ms to 0.1. */
  latency: { p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number; responses: number };
  /** Each round's own p95: how much the rounds agree. */
  p95ByRoundMs: number[];
}

const tenth = (value: number) => Math.round(value * 10) / 10;

/** One autocannon run; its response times in ms, and the figures of a round. */
async function load(scenario: Scenario, options: LatencyOptions, seconds: number) {
  const cpuBefore = await options.snapshot();
  const times: number[] = [];
  // Without a callback autocannon returns its Instance made thenable (the types only say Promise).
  const instance = autocannon({
    url: scenario.url,
    connections: options.connections,
    duration: seconds,
    timeout: 30,
    headers: scenario.headers,
    requests: scenario.requests,
  }) as Promise<autocannon.Result> & autocannon.Instance;
  void instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  const result = await instance;
  const cpuAfter = await options.snapshot();
  const failedStatuses: Record<string, number> = {};
  let responses = 0;
  for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) {
    responses += count;
    if (!scenario.accepted.includes(Number(status)) && count > 0) failedStatuses[status] = count;
  }
  await waitUntilQuiet(options.snapshot);
  const sorted = times.sort((a, b) => a - b);
  const sample: Sample = {
    requestsPerSecond: result.requests.average,
    p50Ms: tenth(quantile(sorted, 0.5)),
    p99Ms: tenth(quantile(sorted, 0.99)),
    responses,
    non2xx: Object.values(failedStatuses).reduce((sum, count) => sum + count, 0),
    errors: result.errors,
    failedStatuses,
    ...(cpuBefore && cpuAfter ? { cpu: cpuUse(cpuBefore, cpuAfter, responses) } : {}),
  };
  return { sample, times: sorted, p95Ms: tenth(quantile(sorted, 0.95)) };
}

/** A warm-up, then `rounds` rounds of every scenario; per scenario the medians and pooled quantiles. */
export async function measureLatency(
  scenarios: Scenario[],
  options: LatencyOptions,
): Promise<Record<string, LatencySummary>> {
  if (options.warmup > 0) {
    for (const scenario of scenarios) await load(scenario, options, options.warmup);
  }
  const taken = new Map(
    scenarios.map((scenario) => [
      scenario.name,
      { samples: [] as Sample[], times: [] as number[], p95s: [] as number[] },
    ]),
  );
  for (let round = 1; round <= options.rounds; round += 1) {
    const ordered = round % 2 === 1 ? scenarios : [...scenarios].reverse();
    for (const scenario of ordered) {
      const { sample, times, p95Ms } = await load(scenario, options, options.duration);
      const failures = sample.non2xx + sample.errors;
      options.log(
        `${options.connections}c round ${round}/${options.rounds} ${scenario.name.padEnd(13)} ` +
          `${Math.round(sample.requestsPerSecond)} req/s, p50 ${sample.p50Ms} ms, p95 ${p95Ms} ms, ` +
          `p99 ${sample.p99Ms} ms${failures > 0 ? `, FAILED ${JSON.stringify(sample.failedStatuses)} / ${sample.errors} errors` : ''}`,
      );
      const entry = taken.get(scenario.name)!;
      entry.samples.push(sample);
      entry.times.push(...times);
      entry.p95s.push(p95Ms);
    }
  }
  return Object.fromEntries(
    [...taken].map(([name, { samples, times, p95s }]) => {
      const sorted = times.sort((a, b) => a - b);
      const latency = {
        p50Ms: tenth(quantile(sorted, 0.5)),
        p95Ms: tenth(quantile(sorted, 0.95)),
        p99Ms: tenth(quantile(sorted, 0.99)),
        maxMs: tenth(sorted[sorted.length - 1] ?? Number.NaN),
        responses: sorted.length,
      };
      return [name, { ...summarize(samples), latency, p95ByRoundMs: p95s }];
    }),
  );
}

/** Milliseconds at p50, p99 and the worst, to 0.1 ms. */
function spread(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50Ms: tenth(quantile(sorted, 0.5)),
    p99Ms: tenth(quantile(sorted, 0.99)),
    maxMs: tenth(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LagPlan {
  /** Tickets created per second, evenly spaced. */
  rate: number;
  duration: number;
  /** Seconds of unrecorded creates first, worked off before the measured ones (0: none). */
  warmup: number;
  /** POST /v1/tickets with the n-th body; answers the ticket's id and updated_at. */
  create(n: number): Promise<{ id: number; updated_at: string }>;
  aiDb: pg.Pool;
  /** The ticket service's database: when its outbox relay published each event (where lag arises). */
  ticketsDb: pg.Pool;
}

/** Creates at `plan.rate` per second for `seconds`, each sent on schedule (an open loop). */
async function createAtRate(plan: LagPlan, first: number, seconds: number) {
  const interval = 1000 / plan.rate;
  const count = Math.round(seconds * plan.rate);
  const created: { id: number; updatedMs: number }[] = [];
  const apiMs: number[] = [];
  const failures: string[] = [];
  const calls: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; n < count; n += 1) {
    const wait = started + n * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    calls.push(
      plan.create(first + n).then(
        (ticket) => {
          apiMs.push(performance.now() - sent);
          created.push({ id: ticket.id, updatedMs: Date.parse(ticket.updated_at) });
        },
        (error: unknown) => {
          failures.push(error instanceof Error ? error.message : String(error));
        },
      ),
    );
  }
  await Promise.all(calls);
  return { count, created, apiMs, failures, loadMs: performance.now() - started };
}

/**
 * Notes when each new corpus row above `after` becomes visible (polling every 10 ms) until `done()`:
 * the lag a suggestion or search sees, the consumer's commit included.
 */
async function watchCorpus(db: pg.Pool, after: number, seenAt: Map<number, number>, done: () => boolean) {
  while (!done()) {
    const { rows } = await db.query<{ ticket_id: number }>(
      'SELECT ticket_id FROM ai_documents WHERE ticket_id > $1 AND NOT (ticket_id = ANY($2::int[]))',
      [after, [...seenAt.keys()]],
    );
    const now = Date.now();
    for (const row of rows) seenAt.set(row.ticket_id, now);
    await sleep(10);
  }
}

/** Waits until every one of `ticketIds` is in the corpus (at most 60 s). */
async function awaitCorpus(db: pg.Pool, ticketIds: number[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM ai_documents WHERE ticket_id = ANY($1::int[])',
      [ticketIds],
    );
    if (rows[0]!.count >= ticketIds.length) return;
    await sleep(100);
  }
}

/** The worst lag among the tickets created in each second of the load. */
function worstBySecond(rows: { updatedMs: number; lagMs: number }[], startedAtMs: number): number[] {
  const worst: number[] = [];
  for (const row of rows) {
    const second = Math.max(0, Math.floor((row.updatedMs - startedAtMs) / 1000));
    worst[second] = Math.max(worst[second] ?? 0, Math.round(row.lagMs));
  }
  return Array.from(worst, (value) => value ?? 0);
}

/**
 * `plan.warmup` seconds of creates, worked off; then `plan.duration` seconds of them, and once each
 * is in the corpus (at most 60 s), the lag of each, where it arose (the ticket service publishing
 * the event) and how long the shadow predictions took, which the consumer records after the row.
 */
export async function measureCorpusLag(plan: LagPlan) {
  const { aiDb, ticketsDb } = plan;
  const warm = plan.warmup > 0 ? await createAtRate(plan, 0, plan.warmup) : undefined;
  if (warm)
    await awaitCorpus(
      aiDb,
      warm.created.map((ticket) => ticket.id),
    );

  const since = new Date();
  // Everything written before is in the corpus by now: rows above the highest id are the load's.
  const head = await aiDb.query<{ head: number }>(
    'SELECT coalesce(max(ticket_id), 0) AS head FROM ai_documents',
  );
  const after = head.rows[0]!.head;
  const seenAt = new Map<number, number>();
  let watching = true;
  const watcher = watchCorpus(aiDb, after, seenAt, () => !watching);
  const startedAtMs = Date.now();
  const { count, created, apiMs, failures, loadMs } = await createAtRate(
    plan,
    warm?.count ?? 0,
    plan.duration,
  );
  const deadline = Date.now() + 60_000;
  while (created.some((ticket) => !seenAt.has(ticket.id)) && Date.now() < deadline) await sleep(50);
  watching = false;
  await watcher;

  const lags = created.flatMap((ticket) => {
    const seen = seenAt.get(ticket.id);
    return seen === undefined ? [] : [{ updatedMs: ticket.updatedMs, lagMs: seen - ticket.updatedMs }];
  });
  // Predictions are written after the row: how far behind they run (at most 60 s more).
  const ids = created.map((ticket) => ticket.id);
  const predictedBy = Date.now() + 60_000;
  const predictions = () =>
    aiDb.query<{ ticket_id: number; at_ms: number }>(
      `SELECT ticket_id, extract(epoch FROM min(created_at))::float8 * 1000 AS at_ms
         FROM ai_predictions WHERE ticket_id = ANY($1::int[]) GROUP BY ticket_id`,
      [ids],
    );
  let predicted = await predictions();
  while (predicted.rows.length < ids.length && Date.now() < predictedBy) {
    await sleep(250);
    predicted = await predictions();
  }
  const updatedById = new Map(created.map((ticket) => [ticket.id, ticket.updatedMs]));
  const published = await ticketsDb.query<{ lag_ms: number }>(
    `SELECT extract(epoch FROM published_at - (payload->>'occurred_at')::timestamptz)::float8 * 1000 AS lag_ms
       FROM outbox_events WHERE created_at >= $1 AND published_at IS NOT NULL`,
    [since],
  );
  return {
    creates: count,
    createsPerSecond: Math.round((created.length / loadMs) * 1000 * 10) / 10,
    failedCreates: failures.length,
    failures: failures.slice(0, 3),
    createApi: spread(apiMs),
    /** Tickets whose row never showed within 60 s of the last create. */
    missing: created.length - lags.length,
    /** The ticket service's part: outbox published_at - occurred_at, per event. */
    published: spread(published.rows.map((row) => row.lag_ms)),
    /** When the watcher first saw the row - the ticket's updated_at (polled every 10 ms). */
    corpus: spread(lags.map((row) => row.lagMs)),
    /** The worst corpus lag of the creates of each second: growing when the consumer falls behind. */
    worstBySecond: worstBySecond(lags, startedAtMs),
    /** The first prediction's created_at (its transaction's start) - updated_at. */
    predictions: {
      ...spread(predicted.rows.map((row) => row.at_ms - updatedById.get(row.ticket_id)!)),
      tickets: predicted.rows.length,
    },
  };
}
