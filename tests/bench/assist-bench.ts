/**
 * `pnpm bench --only assist`: the assistant's costs (docs/benchmarks.md, "Assistant"). The fleet
 * runs on free ports (fresh databases and vhost, as the main bench), with the spec's tight route
 * limits lifted too; the bench seeds the ai service's corpus with `--documents` tickets of a support
 * desk (assist-desk.ts, assist-seed.ts), creates `--open` open tickets through the API for the
 * assistant's consumer to pick up, and signs in on the session host as an agent, as a browser does.
 * 1. Latency at `--connections`, interleaved rounds:
 *    - suggest: POST /api/ai/suggest-reply for a random one of the open tickets;
 *    - search-common, search-rare: GET /api/search/tickets?q= a random term matching thousands of
 *      tickets (the problems' own words), or a handful (tail words, error codes, companies).
 *    Targets: suggest p95 under 250 ms, search p95 under 100 ms.
 * 2. Corpus lag: `--rate` tickets created per second through the API for `--duration` seconds; the
 *    time from each ticket's updated_at to its row in the corpus. Target: p99 under 1 s.
 *
 *   pnpm bench --only assist [--documents 100000] [--open 300] [--rounds 5] [--duration 10]
 *                            [--connections 4] [--rate 50] [--warmup 3] [--log-level error]
 *                            [--out tests/bench/results/assist-latest.json]
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import pg from 'pg';
import { databaseName } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import type { Scenario } from './activity-measure.js';
import { createDesk, VOCABULARY } from './assist-desk.js';
import { measureCorpusLag, measureLatency, type LatencySummary } from './assist-measure.js';
import { seedAssistCorpus } from './assist-seed.js';
import { cpuSnapshot, waitUntilQuiet } from './cpu-usage.js';
import { startBenchFleet, teardownOnSignal } from './environment.js';
import { describeMachine } from './report.js';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';

export const ASSIST_TARGETS = { suggestP95Ms: 250, searchP95Ms: 100, lagP99Ms: 1_000 } as const;

/** Seeds of the desk's words, its history, and the tickets written during the bench. */
const DESK_SEED = 14;
const HISTORY_SEED = 2026;
const LIVE_SEED = 77;

/** Open tickets whose suggestion is asked once before the load, to report how many get one. */
const SUGGESTION_SAMPLE = 40;

interface AssistBenchOptions extends BenchRunOptions {
  documents: number;
  open: number;
  rounds: number;
  duration: number;
  connections: number;
  rate: number;
  warmup: number;
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseAssistOptions(argv: string[]): AssistBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: { warmup: 3, documents: 100_000, open: 300, rounds: 5, duration: 10, connections: 4, rate: 50 },
    results: 'assist-latest.json',
  });
  return {
    documents: args.integer.documents,
    open: args.integer.open,
    rounds: args.integer.rounds,
    duration: args.integer.duration,
    connections: args.integer.connections,
    rate: args.integer.rate,
    warmup: args.integer.warmup,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench assist] ${message}\n`);
}

/**
 * Signs in on the session host as a browser does (CSRF token, then login); answers the session
 * cookie and the token its writes must send.
 */
async function signIn(appUrl: string, email: string, password: string) {
  const start = await fetch(`${appUrl}/api/csrf-token`);
  const token = ((await start.json()) as { data: { token: string } }).data.token;
  const login = await fetch(`${appUrl}/api/auth/login`, {
    method: 'POST',
    headers: {
      cookie: start.headers.getSetCookie()[0]!.split(';')[0]!,
      'x-csrf-token': token,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}: ${await login.text()}`);
  const answer = (await login.json()) as { data: { csrf_token: string } };
  return { cookie: login.headers.getSetCookie()[0]!.split(';')[0]!, csrfToken: answer.data.csrf_token };
}

/** Calls `url` and insists on a 200; answers the envelope's data. */
async function call(url: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: unknown }).data;
}

/** CPU figures as `gateway 0.31 · ai 0.12 · ...` (ms per request, largest first). */
function cpuLine(summary: LatencySummary): string {
  if (!summary.cpu) return 'no CPU figures (Linux only)';
  return Object.entries(summary.cpu.perRequestMs)
    .filter(([, ms]) => ms >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([group, ms]) => `${group === 'bench' ? 'autocannon' : group} ${ms.toFixed(2)}`)
    .join(' · ');
}

const figures = (summary: LatencySummary) =>
  `${Math.round(summary.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${summary.latency.p50Ms} ms, ` +
  `p95 ${summary.latency.p95Ms} ms, p99 ${summary.latency.p99Ms} ms ` +
  `(p95 by round ${summary.p95ByRoundMs.join(' / ')})` +
  `${summary.non2xx + summary.errors > 0 ? `, ${summary.non2xx + summary.errors} FAILED` : ''}`;

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** Runs the assistant bench and prints / writes its figures. */
export async function runAssistBench(argv: string[]): Promise<void> {
  const options = parseAssistOptions(argv);
  const startedAt = new Date();
  const loadAverage = os.loadavg().map((value) => Math.round(value * 100) / 100);
  const teardown = teardownOnSignal(log);
  try {
    log(`starting the fleet (load average ${loadAverage.join(', ')})`);
    const environment = await startBenchFleet(teardown, options.logLevel);
    const { appUrl, fleetUrl: apiUrl, lookup, project } = environment;
    const aiUrl = environment.databaseUrls.find((url) => url.endsWith('tix_ai'));
    if (!appUrl || !apiUrl || !lookup || !aiUrl) throw new Error('the fleet has no ai service');
    const aiDb = new pg.Pool({ connectionString: aiUrl, max: 2 });
    teardown.add('close the ai database pool', () => aiDb.end());
    const ticketsDb = new pg.Pool({ connectionString: environment.ticketsDatabaseUrl, max: 1 });
    teardown.add('close the tickets database pool', () => ticketsDb.end());
    const postgres = (await aiDb.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;

    const desk = createDesk(DESK_SEED);
    log(`seeding ${options.documents.toLocaleString('en-US')} documents`);
    const seeded = await seedAssistCorpus(aiDb, {
      documents: options.documents,
      projectId: project.id,
      prefix: project.prefix,
      ticketTypeId: environment.ticketTypeId,
      statuses: project.statuses,
      filedBy: environment.userId,
      resolvers: environment.assigneeIds.slice(0, 3),
      desk,
      seed: HISTORY_SEED,
    });
    log(
      `seeded in ${(seeded.milliseconds / 1000).toFixed(1)} s: ${seeded.resolved.toLocaleString('en-US')} resolved, ` +
        `${seeded.comments.toLocaleString('en-US')} comments, ${seeded.lexemes.toLocaleString('en-US')} lexemes ` +
        `(documents ${seeded.documentsMiB} MiB, comments ${seeded.commentsMiB} MiB)`,
    );
    // The seeded history holds ids and numbers 1..N: the ticket service continues after them.
    await ticketsDb.query(`SELECT setval(pg_get_serial_sequence('tickets', 'id'), $1)`, [options.documents]);
    await ticketsDb.query(
      `INSERT INTO project_counters (project_id, last_ref_id) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET last_ref_id = EXCLUDED.last_ref_id`,
      [project.id, options.documents],
    );

    const databases = environment.databaseUrls.map(databaseName);
    const snapshot = async () => {
      const { rows } = await aiDb.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()',
        [databases],
      );
      return cpuSnapshot(rows.map((row) => row.pid));
    };

    // Customers' new tickets, worded like the history: the suggestions' subjects, then the lag's load.
    const live = desk.tickets({
      count: options.open + (options.warmup + options.duration) * options.rate,
      seed: LIVE_SEED,
    });
    const create = async (n: number) => {
      const ticket = live[n % live.length]!;
      const created = await call(`${apiUrl}/v1/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${environment.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          ticket_type_id: environment.ticketTypeId,
          title: ticket.title,
          description: ticket.description,
        }),
      });
      return created.ticket as { id: number; updated_at: string };
    };
    log(`creating ${options.open} open tickets through the API`);
    const openIds: number[] = [];
    for (let n = 0; n < options.open; n += 1) openIds.push((await create(n)).id);
    await eventually(async () => {
      const { rows } = await aiDb.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM ai_documents WHERE ticket_id = ANY($1::int[])',
        [openIds],
      );
      return rows[0]!.count === openIds.length;
    }, 120_000);
    // Their shadow predictions are worked off before anything is measured.
    await waitUntilQuiet(snapshot, 120_000);

    const suffix = randomBytes(3).toString('hex');
    const password = 'bench agent passphrase';
    const agent = await lookup.CreateUser(
      { name: 'Bench agent', email: `bench-agent-${suffix}@example.com`, role: 'agent', password },
      { correlationId: `bench-${suffix}` },
    );
    const session = await signIn(appUrl, agent.email, password);
    const sessionHeaders = { cookie: session.cookie, 'x-csrf-token': session.csrfToken };
    const suggestUrl = `${appUrl}/api/ai/suggest-reply?project_id=${project.id}`;
    const suggest = (ticketId: number) =>
      call(suggestUrl, {
        method: 'POST',
        headers: { ...sessionHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket_id: ticketId }),
      });

    // Shape check: the quota is lifted, suggestions come, both kinds of term find tickets.
    const availability = await call(`${appUrl}/api/ai/suggest-reply/availability?project_id=${project.id}`, {
      headers: sessionHeaders,
    });
    if (availability.rate_limit !== null && availability.rate_limit.limit < 1_000_000)
      throw new Error(`the suggestion quota is not lifted: ${JSON.stringify(availability.rate_limit)}`);
    log(
      `availability: ${availability.corpus.resolved_tickets} resolved tickets, quota ${availability.rate_limit?.limit ?? 'off'}`,
    );
    const sampled = { suggested: 0, confidences: [] as number[], labels: {} as Record<string, number> };
    for (const ticketId of openIds.slice(0, SUGGESTION_SAMPLE)) {
      const answer = await suggest(ticketId);
      if (answer.suggestion === null) continue;
      sampled.suggested += 1;
      sampled.confidences.push(answer.suggestion.confidence);
      const label = answer.suggestion.confidence_label as string;
      sampled.labels[label] = (sampled.labels[label] ?? 0) + 1;
    }
    log(
      `suggestions for ${sampled.suggested} of ${Math.min(SUGGESTION_SAMPLE, openIds.length)} open tickets ${JSON.stringify(sampled.labels)}`,
    );
    const searchUrl = (term: string) => `/api/search/tickets?q=${encodeURIComponent(term)}`;
    /** How many tickets each term matches. */
    const matches = async (terms: readonly string[]) => {
      const totals: Record<string, number> = {};
      for (const term of terms) {
        const page = await call(`${appUrl}${searchUrl(term)}`, { headers: sessionHeaders });
        totals[term] = page.pagination.total as number;
      }
      return totals;
    };
    const matched = { common: await matches(desk.commonTerms), rare: await matches(desk.rareTerms) };
    if (Object.values(matched.rare).every((total) => total === 0))
      throw new Error('no rare term matches any ticket');
    const range = (totals: Record<string, number>) => {
      const sorted = Object.values(totals).sort((a, b) => a - b);
      return `${sorted[0]}..${sorted[sorted.length - 1]} (median ${sorted[Math.floor(sorted.length / 2)]})`;
    };
    log(`tickets matched: common terms ${range(matched.common)}, rare terms ${range(matched.rare)}`);

    const randomTerm = (terms: readonly string[]) => (request: autocannon.Request) => ({
      ...request,
      path: searchUrl(terms[randomInt(terms.length)]!),
    });
    const scenarios: Scenario[] = [
      {
        name: 'suggest',
        url: appUrl,
        headers: { ...sessionHeaders, 'content-type': 'application/json' },
        requests: [
          {
            method: 'POST',
            path: `/api/ai/suggest-reply?project_id=${project.id}`,
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({ ticket_id: openIds[randomInt(openIds.length)] }),
            }),
          },
        ],
        accepted: [200],
      },
      {
        name: 'search-common',
        url: appUrl,
        headers: sessionHeaders,
        requests: [{ method: 'GET', setupRequest: randomTerm(desk.commonTerms) }],
        accepted: [200],
      },
      {
        name: 'search-rare',
        url: appUrl,
        headers: sessionHeaders,
        requests: [{ method: 'GET', setupRequest: randomTerm(desk.rareTerms) }],
        accepted: [200],
      },
    ];
    log(`latency at ${options.connections} connections`);
    const latency = await measureLatency(scenarios, { ...options, snapshot, log });

    log(`corpus lag: ${options.rate} creates/s for ${options.duration} s`);
    const lag = await measureCorpusLag({
      rate: options.rate,
      duration: options.duration,
      warmup: options.warmup,
      create: (n) => create(options.open + n),
      aiDb,
      ticketsDb,
    });

    const result = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { ...describeMachine(`PostgreSQL ${postgres}`), loadAverage },
      options: { ...options, out: undefined },
      targets: ASSIST_TARGETS,
      seeding: {
        documents: seeded.documents,
        resolved: seeded.resolved,
        comments: seeded.comments,
        lexemes: seeded.lexemes,
        seconds: Math.round(seeded.milliseconds / 100) / 10,
        documentsMiB: seeded.documentsMiB,
        commentsMiB: seeded.commentsMiB,
        vocabulary: VOCABULARY,
      },
      suggestionSample: { asked: Math.min(SUGGESTION_SAMPLE, openIds.length), ...sampled },
      matchedTickets: matched,
      latency,
      lag,
      met: {
        suggest: latency.suggest!.latency.p95Ms < ASSIST_TARGETS.suggestP95Ms,
        searchCommon: latency['search-common']!.latency.p95Ms < ASSIST_TARGETS.searchP95Ms,
        searchRare: latency['search-rare']!.latency.p95Ms < ASSIST_TARGETS.searchP95Ms,
        lag: lag.missing === 0 && lag.corpus.p99Ms < ASSIST_TARGETS.lagP99Ms,
      },
    };

    const lines = [
      '',
      `Seeded ${seeded.documents.toLocaleString('en-US')} documents (${seeded.resolved.toLocaleString('en-US')} resolved), ` +
        `${seeded.comments.toLocaleString('en-US')} comments, ${seeded.lexemes.toLocaleString('en-US')} lexemes in ` +
        `${result.seeding.seconds} s. Load average at start: ${loadAverage.join(', ')}.`,
      `Suggestions for ${sampled.suggested} of ${result.suggestionSample.asked} open tickets; ` +
        `search terms match ${range(matched.common)} (common) and ${range(matched.rare)} (rare) tickets.`,
      `Latency at ${options.connections} connections (${options.rounds} rounds x ${options.duration} s; ` +
        'quantiles over every response, req/s the median round):',
      ...Object.entries(latency).flatMap(([name, summary]) => [
        `  ${name.padEnd(13)} ${figures(summary)}`,
        `                CPU ms/request: ${cpuLine(summary)}`,
      ]),
      `  suggest p95 < ${ASSIST_TARGETS.suggestP95Ms} ms: ${verdict(result.met.suggest)}; ` +
        `search p95 < ${ASSIST_TARGETS.searchP95Ms} ms: ${verdict(result.met.searchCommon)} (common), ` +
        `${verdict(result.met.searchRare)} (rare)`,
      `Corpus lag at ${lag.createsPerSecond} creates/s: ${lag.creates} creates, ${lag.failedCreates} failed, ` +
        `${lag.missing} missing (create p50 ${lag.createApi.p50Ms} ms, p99 ${lag.createApi.p99Ms} ms)`,
      `  published by the ticket service p50 ${lag.published.p50Ms} ms, p99 ${lag.published.p99Ms} ms, max ${lag.published.maxMs} ms`,
      `  in the corpus p50 ${lag.corpus.p50Ms} ms, p99 ${lag.corpus.p99Ms} ms, max ${lag.corpus.maxMs} ms ` +
        `(target p99 < ${ASSIST_TARGETS.lagP99Ms} ms: ${verdict(result.met.lag)})`,
      `  predictions recorded p50 ${lag.predictions.p50Ms} ms, p99 ${lag.predictions.p99Ms} ms, max ${lag.predictions.maxMs} ms ` +
        `(${lag.predictions.tickets} tickets)`,
      `  worst corpus lag per second of load (ms): ${lag.worstBySecond.join(', ')}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${options.out}`);
    const failures = Object.values(latency).some((summary) => summary.non2xx + summary.errors > 0);
    if (failures || lag.missing > 0 || lag.failedCreates > 0) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}
