/**
 * The three measurements of `pnpm bench --only webhooks` (webhooks-bench.ts): latency from an API
 * write to the receiver, sustained deliveries at a fixed event rate, and capacity through a backlog.
 */
import type pg from 'pg';
import type { BenchReceiver } from './webhooks-receiver.js';

/** What the measurements need of the API (webhooks-bench.ts makes it over fetch). */
export interface WebhookApi {
  createTicket(title: string): Promise<number>;
  /** Sets the priority of `ids`; answers how many tickets changed (one ticket.updated each). */
  bulkPriority(ids: number[], priority: string): Promise<number>;
}

/** The options the measurements read. */
export interface MeasureOptions {
  latencySamples: number;
  warmup: number;
  duration: number;
  rate: number;
  burst: number;
  subscriptions: number;
}

/** The value at quantile q of sorted `values`. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** Sequential creates, each timed from the API request to the receiver getting its delivery. */
export async function measureLatency(api: WebhookApi, receiver: BenchReceiver, options: MeasureOptions) {
  const endToEnd: number[] = [];
  const apiOnly: number[] = [];
  for (let i = 0; i < options.warmup + options.latencySamples; i += 1) {
    const started = performance.now();
    const id = await api.createTicket(`Latency ${i}`);
    const answered = performance.now();
    const arrived = await receiver.waitForTicket(id, 30_000);
    if (i < options.warmup) continue;
    endToEnd.push(arrived - started);
    apiOnly.push(answered - started);
  }
  endToEnd.sort((a, b) => a - b);
  apiOnly.sort((a, b) => a - b);
  return {
    samples: endToEnd.length,
    p50Ms: round(quantile(endToEnd, 0.5)),
    p90Ms: round(quantile(endToEnd, 0.9)),
    p99Ms: round(quantile(endToEnd, 0.99)),
    maxMs: round(endToEnd[endToEnd.length - 1]!),
    apiCreateP50Ms: round(quantile(apiOnly, 0.5)),
    apiCreateP99Ms: round(quantile(apiOnly, 0.99)),
  };
}

/** Tickets per bulk update (the API's maximum). */
export const BULK_SIZE = 100;
const TICK_MS = 100;
const PRIORITIES = ['low', 'high'] as const;

/** Waits until `expected` more deliveries arrived after index `from` (at most 120 s), then a little more. */
async function awaitDeliveries(receiver: BenchReceiver, from: number, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (receiver.arrivals.length - from < expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500)); // duplicates, if any, show up too
}

function tally(receiver: BenchReceiver, from: number, expected: number) {
  const arrivals = receiver.arrivals.slice(from);
  const unique = new Set(arrivals.map((arrival) => `${arrival.path} ${arrival.eventId}`));
  return {
    arrivals,
    expectedDeliveries: expected,
    deliveries: arrivals.length,
    missing: expected - unique.size,
    duplicates: arrivals.length - unique.size,
  };
}

/** `--rate` events per second for `--duration` seconds, in bulk updates every 100 ms. */
export async function measureSustained(
  api: WebhookApi,
  receiver: BenchReceiver,
  tickets: number[],
  options: MeasureOptions,
) {
  const perTick = Math.max(1, Math.round((options.rate * TICK_MS) / 1000));
  const from = receiver.arrivals.length;
  let events = 0;
  let late = 0;
  const started = performance.now();
  const ticks = Math.round((options.duration * 1000) / TICK_MS);
  for (let tick = 0; tick < ticks; tick += 1) {
    const ids = tickets
      .slice((tick * perTick) % tickets.length)
      .concat(tickets)
      .slice(0, perTick);
    events += await api.bulkPriority(ids, PRIORITIES[tick % 2]!);
    const wait = started + (tick + 1) * TICK_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else late += 1;
  }
  const loadEnded = performance.now();
  await awaitDeliveries(receiver, from, events * options.subscriptions);
  const counted = tally(receiver, from, events * options.subscriptions);
  const windowStart = started + 1_000;
  const inWindow = counted.arrivals.filter(
    (arrival) => arrival.at >= windowStart && arrival.at <= loadEnded,
  ).length;
  const lastAt = counted.arrivals.reduce((latest, arrival) => Math.max(latest, arrival.at), 0);
  const { arrivals: _arrivals, ...figures } = counted;
  return {
    events,
    eventsPerSecond: round(events / ((loadEnded - started) / 1000)),
    ticksBehindSchedule: late,
    ...figures,
    deliveriesPerSecondDuringLoad: round(inWindow / ((loadEnded - windowStart) / 1000)),
    lagAfterLoadMs: Math.round(Math.max(0, lastAt - loadEnded)),
  };
}

/**
 * Where the burst's time went, from the webhook database: when the consumer fanned out the first
 * and the last event (deliveries.created_at) and when the last delivery was recorded.
 */
async function pipelineSpans(webhooksDb: pg.Pool, since: Date) {
  const { rows } = await webhooksDb.query<{ first_fan_out: Date; last_fan_out: Date; last_recorded: Date }>(
    `SELECT min(created_at) AS first_fan_out, max(created_at) AS last_fan_out, max(updated_at) AS last_recorded
       FROM deliveries WHERE created_at >= $1`,
    [since],
  );
  const row = rows[0]!;
  return {
    fanOutSpanMs: row.last_fan_out.getTime() - row.first_fan_out.getTime(),
    firstFanOutToLastRecordedMs: row.last_recorded.getTime() - row.first_fan_out.getTime(),
  };
}

/** `--burst` events as fast as the API takes them; the delivery rate while the backlog drains. */
export async function measureCapacity(
  api: WebhookApi,
  receiver: BenchReceiver,
  tickets: number[],
  options: MeasureOptions,
  webhooksDb: pg.Pool,
) {
  const from = receiver.arrivals.length;
  const since = new Date();
  let events = 0;
  const started = performance.now();
  for (let n = 0; events < options.burst; n += 1) {
    const ids = tickets.slice(0, Math.min(BULK_SIZE, options.burst - events));
    events += await api.bulkPriority(ids, PRIORITIES[n % 2]!);
  }
  const written = performance.now();
  await awaitDeliveries(receiver, from, events * options.subscriptions);
  const counted = tally(receiver, from, events * options.subscriptions);
  const times = counted.arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
  const { arrivals: _arrivals, ...figures } = counted;
  return {
    events,
    apiWriteMs: Math.round(written - started),
    ...figures,
    deliveriesPerSecond: round(times.length / ((times[times.length - 1]! - times[0]!) / 1000)),
    firstToLastMs: Math.round(times[times.length - 1]! - times[0]!),
    ...(await pipelineSpans(webhooksDb, since)),
  };
}
