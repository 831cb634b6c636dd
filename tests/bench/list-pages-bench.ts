/**
 * `pnpm bench --only list-pages`: what a deep page of the ticket list costs in offset mode and in
 * cursor mode (docs/benchmarks.md). The fleet runs on free ports (fresh databases and vhost, as the
 * main bench); the project is seeded with `--tickets` tickets by bulk SQL (seed.ts). The bench walks
 * the cursor pages up to `--page` once through the API (checking that page's tickets are the offset
 * page's), then measures, in interleaved rounds with autocannon, GET /v1/tickets?page=<page> (offset)
 * against GET /v1/tickets?cursor=<its cursor> (cursor), both `--per-page` and the default sort, and
 * the first page (offset page 1) as what a page costs when nothing is skipped. Reported: median
 * pages/s (2xx answers), p50 and p99 of each over the rounds without failed requests, and cursor
 * against the offset baseline of the same run.
 *
 *   pnpm bench --only list-pages [--tickets 100000] [--page 2000] [--per-page 50] [--rounds 5]
 *                                [--duration 5] [--connections 4] [--warmup 2] [--log-level error]
 *                                [--out tests/bench/results/list-pages-latest.json]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';
import { startBenchFleet, Teardown } from './environment.js';
import { median } from './measure.js';
import { describeMachine } from './report.js';
import { seedPlanOf, seedTickets } from './seed.js';

const MODES = ['offset', 'cursor', 'first'] as const;
type Mode = (typeof MODES)[number];

interface ListPagesOptions extends BenchRunOptions {
  tickets: number;
  page: number;
  perPage: number;
  rounds: number;
  duration: number;
  connections: number;
  warmup: number;
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseListPagesOptions(argv: string[]): ListPagesOptions {
  const args = readBenchCommandLine(argv, {
    integers: {
      warmup: 2,
      tickets: 100_000,
      page: 2_000,
      'per-page': 50,
      rounds: 5,
      duration: 5,
      connections: 4,
    },
    results: 'list-pages-latest.json',
  });
  const options = {
    tickets: args.integer.tickets,
    page: args.integer.page,
    perPage: args.integer['per-page'],
    rounds: args.integer.rounds,
    duration: args.integer.duration,
    connections: args.integer.connections,
    warmup: args.integer.warmup,
    logLevel: args.logLevel,
    out: args.out,
  };
  if (options.perPage > 100) throw new Error('--per-page must be at most 100 (the list allows 1 to 100)');
  if (options.page * options.perPage > options.tickets)
    throw new Error(
      `--page ${options.page} of ${options.perPage} needs at least ${options.page * options.perPage} tickets`,
    );
  return options;
}

function log(message: string): void {
  process.stderr.write(`[bench list-pages] ${message}\n`);
}

interface Sample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run of one fixed GET. */
async function measurePath(
  url: string,
  apiKey: string,
  requestPath: string,
  seconds: number,
  connections: number,
) {
  const result = await autocannon({
    url: `${url}${requestPath}`,
    connections,
    duration: seconds,
    timeout: 30,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return {
    // Answered pages only: a refused request (the shared database out of connections) is no page.
    requestsPerSecond: result['2xx'] / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  } satisfies Sample;
}

interface ListAnswer {
  tickets: { id: number }[];
  next_cursor?: string | null;
}

async function getList(url: string, apiKey: string, requestPath: string): Promise<ListAnswer> {
  const response = await fetch(`${url}${requestPath}`, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = (await response.json()) as { data: ListAnswer };
  if (response.status !== 200) throw new Error(`${requestPath}: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

/**
 * The cursor that lists page `page` (the `next_cursor` of page - 1), found by walking the pages as a
 * client does; and how long the whole walk took.
 */
export async function cursorOfPage(url: string, apiKey: string, page: number, perPage: number) {
  const started = performance.now();
  let cursor = '';
  for (let number = 1; number < page; number += 1) {
    const answer = await getList(url, apiKey, `/v1/tickets?per_page=${perPage}&cursor=${cursor}`);
    if (!answer.next_cursor) throw new Error(`the cursor walk ended at page ${number}`);
    cursor = answer.next_cursor;
  }
  return { cursor, walkMs: performance.now() - started };
}

export async function runListPagesBench(argv: string[]): Promise<void> {
  const options = parseListPagesOptions(argv);
  const teardown = new Teardown();
  try {
    log('starting the fleet');
    const environment = await startBenchFleet(teardown, options.logLevel);
    const url = environment.fleetUrl!;
    const pool = new pg.Pool({ connectionString: environment.ticketsDatabaseUrl, max: 1 });
    teardown.add('close the bench database pool', () => pool.end());
    const postgres = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;
    log(`seeding ${options.tickets.toLocaleString('en-US')} tickets`);
    const seeded = await seedTickets(pool, seedPlanOf(environment, options.tickets));
    log(`seeded in ${(seeded.milliseconds / 1000).toFixed(1)} s`);

    log(`walking ${options.page - 1} cursor pages to page ${options.page}`);
    const { cursor, walkMs } = await cursorOfPage(url, environment.apiKey, options.page, options.perPage);
    const paths: Record<Mode, string> = {
      offset: `/v1/tickets?per_page=${options.perPage}&page=${options.page}`,
      cursor: `/v1/tickets?per_page=${options.perPage}&cursor=${cursor}`,
      first: `/v1/tickets?per_page=${options.perPage}&page=1`,
    };
    // Both modes must list the same tickets there, or the comparison means nothing.
    const byOffset = await getList(url, environment.apiKey, paths.offset);
    const byCursor = await getList(url, environment.apiKey, paths.cursor);
    const ids = (answer: ListAnswer) => answer.tickets.map((ticket) => ticket.id).join(',');
    if (ids(byOffset) !== ids(byCursor) || byOffset.tickets.length !== options.perPage)
      throw new Error(`page ${options.page}: the offset and cursor pages differ`);
    log(
      `page ${options.page} is the same ${options.perPage} tickets both ways; the walk took ${(walkMs / 1000).toFixed(1)} s`,
    );

    if (options.warmup > 0) {
      log('warming up');
      for (const mode of MODES)
        await measurePath(url, environment.apiKey, paths[mode], options.warmup, options.connections);
    }
    const samples: Record<Mode, Sample[]> = { offset: [], cursor: [], first: [] };
    for (let round = 1; round <= options.rounds; round += 1) {
      // Interleaved, the order turned every round, so drift falls on both modes alike.
      const order = round % 2 === 1 ? MODES : [...MODES].reverse();
      for (const mode of order) {
        const sample = await measurePath(
          url,
          environment.apiKey,
          paths[mode],
          options.duration,
          options.connections,
        );
        samples[mode].push(sample);
        log(
          `round ${round} ${mode}: ${sample.requestsPerSecond.toFixed(0)} req/s, p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms`,
        );
      }
    }
    const summarize = (mode: Mode) => {
      // A round with failed requests measured failures (fast refusals), not pages: left out of the
      // medians while any clean round remains, and reported.
      const clean = samples[mode].filter((sample) => sample.non2xx + sample.errors === 0);
      const counted = clean.length > 0 ? clean : samples[mode];
      return {
        path: paths[mode].replace(cursor, '<cursor>'),
        requestsPerSecond: median(counted.map((sample) => sample.requestsPerSecond)),
        p50Ms: median(counted.map((sample) => sample.p50Ms)),
        p99Ms: median(counted.map((sample) => sample.p99Ms)),
        failures: samples[mode].reduce((sum, sample) => sum + sample.non2xx + sample.errors, 0),
        roundsLeftOut: samples[mode].length - clean.length,
        samples: samples[mode],
      };
    };
    const summary = { offset: summarize('offset'), cursor: summarize('cursor'), first: summarize('first') };
    const ratios = {
      /** Cursor req/s over offset req/s (above 1: the cursor serves more). */
      throughput: summary.cursor.requestsPerSecond / summary.offset.requestsPerSecond,
      /** Offset p50 over cursor p50 (above 1: the cursor answers sooner). */
      latencyP50: summary.offset.p50Ms / Math.max(summary.cursor.p50Ms, 0.1),
      /** Cursor req/s over the first page's: how near a deep cursor page comes to a first page. */
      cursorVsFirstPage: summary.cursor.requestsPerSecond / summary.first.requestsPerSecond,
    };
    const lines = [
      `Ticket list, page ${options.page.toLocaleString('en-US')} of ${options.perPage} of ${options.tickets.toLocaleString('en-US')} tickets ` +
        `(${options.rounds} rounds of ${options.duration} s at ${options.connections} connections, medians):`,
      ...MODES.map((mode) => {
        const s = summary[mode];
        const label = {
          offset: `offset (page=${options.page})`,
          cursor: 'cursor',
          first: 'first page (page=1)',
        }[mode];
        return `  ${label.padEnd(22)} ${s.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${String(s.p50Ms).padStart(4)} ms   p99 ${String(s.p99Ms).padStart(4)} ms`;
      }),
      `  cursor vs offset: ${ratios.throughput.toFixed(2)}x the req/s, p50 ${ratios.latencyP50.toFixed(2)}x sooner; ` +
        `cursor vs first page: ${Math.round(ratios.cursorVsFirstPage * 100)}% of its req/s`,
      `  walking all ${options.page - 1} pages before it by cursor took ${(walkMs / 1000).toFixed(1)} s ` +
        `(${(walkMs / (options.page - 1)).toFixed(1)} ms a page)`,
    ];
    for (const mode of MODES) {
      const { failures, roundsLeftOut } = summary[mode];
      if (failures > 0)
        lines.push(
          `  WARNING: ${mode}: ${failures} non-2xx answers or errors; ${roundsLeftOut} of ${options.rounds} rounds left out of the medians`,
        );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(
      options.out,
      JSON.stringify(
        {
          bench: 'list-pages',
          at: new Date().toISOString(),
          options: { ...options, out: undefined },
          machine: describeMachine(`PostgreSQL ${postgres}`),
          walkMs,
          summary,
          ratios,
        },
        null,
        2,
      ),
    );
    log(`wrote ${options.out}`);
  } finally {
    await teardown.run();
  }
}
