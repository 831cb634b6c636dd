/**
 * `pnpm bench --only activity`: the activity feed's costs (docs/benchmarks.md, "Activity feed").
 * The fleet runs on free ports (fresh databases and vhost, as the main bench); the bench signs in
 * on the session host as a browser does, and seeds the activity service's database with `--entries`
 * entries (activity-seed.ts: `--tickets` tickets over five projects, 50 actors of the four kinds).
 * 1. Feed reads: the first page (per_page 50) of GET /api/activity filtered by a random seeded
 *    ticket, by a random actor, unfiltered, and by field=status, at `--read-connections`.
 *    Target: p99 under 50 ms with a ticket or actor filter.
 * 2. Polling: GET /api/activity/new with the current cursor and the ETag of the previous answer
 *    (304, as an open browser tab polls) against GET /v1/projects with an API key, interleaved
 *    rounds at `--connections`. Target: the poll costs no more (poll/projects req/s >= 100%).
 * 3. Lag: `--rate` ticket writes per second through the API for `--duration` seconds, as a bulk
 *    update every 100 ms (single PUTs at 200/s are more than this 2-core machine's whole fleet can
 *    take, which would measure the machine, not the feed); how long each write took to become an
 *    entry, and that every write has exactly one. Target: p99 under 100 ms.
 *
 *   pnpm bench --only activity [--entries 1000000] [--tickets 20000] [--rounds 5] [--duration 10]
 *                              [--connections 32] [--read-connections 4] [--rate 200] [--warmup 3]
 *                              [--log-level error] [--out tests/bench/results/activity-latest.json]
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databaseName, type ServiceClient } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import { seedActivity, type SeedActor } from './activity-seed.js';
import { measureLag, runScenarios, type Scenario } from './activity-measure.js';
import { cpuSnapshot } from './cpu-usage.js';
import { startBenchFleet, teardownOnSignal, type BenchEnvironment } from './environment.js';
import type { Summary } from './measure.js';
import { describeMachine } from './report.js';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';

export const ACTIVITY_TARGETS = { pollPerProjects: 1, filteredReadP99Ms: 50, lagP99Ms: 100 } as const;

/** Throughput ratios this close under the target are equal: rounds on this machine spread by about as much. */
const RATIO_NOISE = 0.05;

interface ActivityBenchOptions extends BenchRunOptions {
  entries: number;
  tickets: number;
  rounds: number;
  duration: number;
  connections: number;
  readConnections: number;
  rate: number;
  warmup: number;
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseActivityOptions(argv: string[]): ActivityBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: {
      warmup: 3,
      entries: 1_000_000,
      tickets: 20_000,
      rounds: 5,
      duration: 10,
      connections: 32,
      'read-connections': 4,
      rate: 200,
    },
    results: 'activity-latest.json',
  });
  return {
    entries: args.integer.entries,
    tickets: args.integer.tickets,
    rounds: args.integer.rounds,
    duration: args.integer.duration,
    connections: args.integer.connections,
    readConnections: args.integer['read-connections'],
    rate: args.integer.rate,
    warmup: args.integer.warmup,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench activity] ${message}\n`);
}

/** Projects of the seeded desk besides the environment's own (which the live writes go to). */
const MORE_PROJECT_PREFIXES = ['SUPPORT', 'BILLING', 'SALES', 'OPS'];
/** Of the 50 seeded actors: people, then integrations (keys of the first people), the AI, the system. */
const ACTOR_COUNTS = { user: 40, api_key: 6, ai: 2, system: 2 } as const;
const READER_PASSWORD = 'bench reader passphrase';

/** The seeded desk's projects, its actors (real lookup users, so names resolve) and a reader who signs in. */
async function makeDesk(lookup: ServiceClient<'lookup'>, environment: BenchEnvironment) {
  const context = { correlationId: `bench-${randomBytes(4).toString('hex')}` };
  const suffix = randomBytes(3).toString('hex');
  const projects = [{ id: environment.project.id, prefix: environment.project.prefix }];
  for (const prefix of MORE_PROJECT_PREFIXES) {
    const slug = `${prefix.toLowerCase()}-${suffix}`;
    const made = await lookup.CreateProject(
      { name: `Bench ${prefix}`, slug, prefix, description: '', statuses: [] },
      context,
    );
    projects.push({ id: made.id, prefix: made.prefix });
  }
  const user = (name: string, role = 'agent', password?: string) =>
    lookup.CreateUser(
      {
        name,
        email: `${name.toLowerCase().replace(/ /g, '-')}-${suffix}@example.com`,
        role,
        ...(password ? { password } : {}),
      },
      context,
    );
  const people: number[] = [];
  for (let i = 0; i < ACTOR_COUNTS.user; i += 1) people.push((await user(`Agent ${i + 1}`)).id);
  const actors: SeedActor[] = people.map((id) => ({ kind: 'user', userId: id, apiKeyId: null }));
  for (let i = 0; i < ACTOR_COUNTS.api_key; i += 1) {
    const key = await lookup.CreateApiKey(
      {
        user_id: people[i]!,
        scopes: ['tickets:write'],
        project_id: projects[0]!.id,
        name: `integration ${i}`,
      },
      context,
    );
    actors.push({ kind: 'api_key', userId: people[i]!, apiKeyId: key.id });
  }
  const ai = await user('Bench AI');
  for (let i = 0; i < ACTOR_COUNTS.ai; i += 1) actors.push({ kind: 'ai', userId: ai.id, apiKeyId: null });
  for (let i = 0; i < ACTOR_COUNTS.system; i += 1)
    actors.push({ kind: 'system', userId: null, apiKeyId: null });
  const reader = await user('Bench reader', 'agent', READER_PASSWORD);
  return { projects, people, actors, reader };
}

/** Signs in on the session host as a browser does (CSRF token, then login); answers the session cookie. */
async function signIn(appUrl: string, email: string, password: string): Promise<string> {
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
  return login.headers.getSetCookie()[0]!.split(';')[0]!;
}

/** GET `url` and insist on `status`; answers the response. */
async function expectStatus(url: string, headers: Record<string, string>, status: number) {
  const response = await fetch(url, { headers });
  if (response.status !== status) {
    throw new Error(`GET ${url} answered ${response.status} (expected ${status}): ${await response.text()}`);
  }
  return response;
}

/** The feed's first pages (per_page 50): a random seeded ticket, a random actor, all, field=status. */
function readScenarios(
  appUrl: string,
  cookie: string,
  firstTicket: number,
  tickets: number,
  people: number[],
) {
  const page = (name: string, query: () => string): Scenario => ({
    name,
    url: appUrl,
    headers: { cookie },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/api/activity?${query()}&per_page=50` }),
      },
    ],
    accepted: [200],
  });
  return [
    page('ticket', () => `ticket_id=${randomInt(firstTicket, firstTicket + tickets)}`),
    page('actor', () => `actor_id=${people[randomInt(people.length)]}`),
    page('all', () => 'page=1'),
    page('status', () => 'field=status'),
  ];
}

/** CPU figures as `gateway 0.31 · activity 0.12 · ...` (ms per request, largest first). */
function cpuLine(summary: Summary): string {
  if (!summary.cpu) return 'no CPU figures (Linux only)';
  return Object.entries(summary.cpu.perRequestMs)
    .filter(([, ms]) => ms >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([group, ms]) => `${group === 'bench' ? 'autocannon' : group} ${ms.toFixed(2)}`)
    .join(' · ');
}

/** CPU ms per request of the servers (everything but the load generator). */
function serverCpuMs(summary: Summary): number | undefined {
  if (!summary.cpu) return undefined;
  return Object.entries(summary.cpu.perRequestMs)
    .filter(([group]) => group !== 'bench')
    .reduce((sum, [, ms]) => sum + ms, 0);
}

const figures = (summary: Summary) =>
  `${Math.round(summary.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${summary.p50Ms} ms, ` +
  `p99 ${summary.p99Ms} ms${summary.non2xx + summary.errors > 0 ? `, ${summary.non2xx + summary.errors} FAILED` : ''}`;

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const cpuMs = (ms: number | undefined) => (ms === undefined ? '-' : ms.toFixed(2));

function pollVerdict(ratio: number): string {
  if (ratio >= ACTIVITY_TARGETS.pollPerProjects) return 'met';
  return ratio >= ACTIVITY_TARGETS.pollPerProjects - RATIO_NOISE
    ? 'equal within the noise of rounds'
    : 'NOT met';
}

/** Runs the activity bench and prints / writes its figures. */
export async function runActivityBench(argv: string[]): Promise<void> {
  const options = parseActivityOptions(argv);
  const startedAt = new Date();
  const loadAverage = os.loadavg().map((value) => Math.round(value * 100) / 100);
  const teardown = teardownOnSignal(log);
  try {
    log(`starting the fleet (load average ${loadAverage.join(', ')})`);
    const environment = await startBenchFleet(teardown, options.logLevel);
    const { appUrl, fleetUrl: apiUrl, lookup } = environment;
    const activityUrl = environment.databaseUrls.find((url) => url.endsWith('tix_activity'));
    if (!appUrl || !apiUrl || !lookup || !activityUrl) throw new Error('the fleet has no activity service');
    const activityDb = new pg.Pool({ connectionString: activityUrl, max: 2 });
    teardown.add('close the activity database pool', () => activityDb.end());
    const ticketsDb = new pg.Pool({ connectionString: environment.ticketsDatabaseUrl, max: 1 });
    teardown.add('close the tickets database pool', () => ticketsDb.end());
    const postgres = (await activityDb.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;

    const desk = await makeDesk(lookup, environment);
    log(`seeding ${options.entries.toLocaleString('en-US')} entries over ${options.tickets} tickets`);
    const seeded = await seedActivity(activityDb, {
      entries: options.entries,
      tickets: options.tickets,
      projects: desk.projects,
      actors: desk.actors,
      assigneeIds: desk.people,
    });
    log(`seeded in ${(seeded.milliseconds / 1000).toFixed(1)} s (activities ${seeded.tableMiB} MiB)`);

    const databases = environment.databaseUrls.map(databaseName);
    const snapshot = async () => {
      const { rows } = await activityDb.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()',
        [databases],
      );
      return cpuSnapshot(rows.map((row) => row.pid));
    };
    const scenarioOptions = { ...options, snapshot, log };
    const cookie = await signIn(appUrl, desk.reader.email, READER_PASSWORD);

    // Shape check: a filtered page names its actor (lookup users resolved); an unchanged cursor is a 304.
    const sample = await expectStatus(
      `${appUrl}/api/activity?actor_id=${desk.people[0]}&per_page=50`,
      { cookie },
      200,
    );
    const first = ((await sample.json()) as { data: { activities: { summary: string }[] } }).data.activities;
    log(`a page has ${first.length} entries, e.g. "${first[0]?.summary}"`);
    const start = await expectStatus(`${appUrl}/api/activity/new`, { cookie }, 200);
    const { cursor } = ((await start.json()) as { data: { cursor: string } }).data;
    const pollPath = `/api/activity/new?cursor=${cursor}`;
    const etag = (await expectStatus(`${appUrl}${pollPath}`, { cookie }, 200)).headers.get('etag')!;
    await expectStatus(`${appUrl}${pollPath}`, { cookie, 'if-none-match': etag }, 304);

    log(`feed reads at ${options.readConnections} connections`);
    const reads = await runScenarios(
      readScenarios(appUrl, cookie, seeded.ticketIdBase, options.tickets, desk.people),
      { ...scenarioOptions, connections: options.readConnections },
    );

    log(`polling against /v1/projects at ${options.connections} connections`);
    const polling = await runScenarios(
      [
        {
          name: 'poll',
          url: appUrl,
          headers: { cookie, 'if-none-match': etag },
          requests: [{ method: 'GET', path: pollPath }],
          accepted: [304],
        },
        {
          name: 'projects',
          url: apiUrl,
          headers: { authorization: `Bearer ${environment.apiKey}` },
          requests: [{ method: 'GET', path: '/v1/projects' }],
          accepted: [200],
        },
      ],
      scenarioOptions,
    );

    log(`lag: ${options.rate} writes/s for ${options.duration} s`);
    const call = async (path: string, body: unknown) => {
      const response = await fetch(`${apiUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${environment.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { data: any };
      if (!response.ok)
        throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer.data;
    };
    const ticketIds: number[] = [];
    for (let i = 0; i < options.rate; i += 1) {
      const created = await call('/v1/tickets', {
        ticket_type_id: environment.ticketTypeId,
        title: `Lag ${i}`,
      });
      ticketIds.push(created.ticket.id as number);
    }
    // Their ticket.created entries are in before the load starts.
    await eventually(async () => {
      const { rows } = await activityDb.query<{ entries: number }>(
        'SELECT count(*)::int AS entries FROM activities WHERE ticket_id = ANY($1::int[])',
        [ticketIds],
      );
      return rows[0]!.entries === ticketIds.length;
    }, 60_000);
    const lag = await measureLag({
      rate: options.rate,
      duration: options.duration,
      warmup: options.warmup,
      ticketIds,
      bulkUpdate: async (ids, body) => {
        const updated = await call('/v1/tickets/bulk-update', { ticket_ids: ids, ...body });
        if (updated.failed_count > 0)
          throw new Error(`bulk update failed for ${JSON.stringify(updated.failed_ids)}`);
        return updated.tickets as { id: number; version: number }[];
      },
      activityDb,
      ticketsDb,
      snapshot,
    });

    const pollRatio = polling.poll!.requestsPerSecond / polling.projects!.requestsPerSecond;
    const result = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { ...describeMachine(`PostgreSQL ${postgres}`), loadAverage },
      options: { ...options, out: undefined },
      targets: ACTIVITY_TARGETS,
      seeding: {
        entries: seeded.entries,
        tickets: options.tickets,
        seconds: Math.round(seeded.milliseconds / 100) / 10,
        entriesPerSecond: Math.round(seeded.entries / (seeded.milliseconds / 1000)),
        tableMiB: seeded.tableMiB,
      },
      reads,
      polling: {
        ...polling,
        ratio: Math.round(pollRatio * 1000) / 1000,
        serverCpuMsPerRequest: { poll: serverCpuMs(polling.poll!), projects: serverCpuMs(polling.projects!) },
      },
      lag,
      met: {
        poll: pollRatio >= ACTIVITY_TARGETS.pollPerProjects,
        ticketRead: reads.ticket!.p99Ms < ACTIVITY_TARGETS.filteredReadP99Ms,
        actorRead: reads.actor!.p99Ms < ACTIVITY_TARGETS.filteredReadP99Ms,
        lag: lag.recorded.p99Ms < ACTIVITY_TARGETS.lagP99Ms,
      },
    };

    const lines = [
      '',
      `Seeded ${seeded.entries.toLocaleString('en-US')} entries in ${result.seeding.seconds} s ` +
        `(activities ${seeded.tableMiB} MiB). Load average at start: ${loadAverage.join(', ')}.`,
      `Feed reads, first page of 50, ${options.readConnections} connections ` +
        `(medians of ${options.rounds} rounds x ${options.duration} s):`,
      ...Object.entries(reads).map(([name, summary]) => `  ${name.padEnd(8)} ${figures(summary)}`),
      `  ticket / actor p99 < ${ACTIVITY_TARGETS.filteredReadP99Ms} ms: ` +
        `${verdict(result.met.ticketRead)} / ${verdict(result.met.actorRead)}`,
      `Polling, ${options.connections} connections:`,
      ...Object.entries(polling).flatMap(([name, summary]) => [
        `  ${name.padEnd(8)} ${figures(summary)}`,
        `           CPU ms/request: ${cpuLine(summary)}`,
      ]),
      `  poll/projects req/s ${Math.round(pollRatio * 100)}% (target >= 100%: ${pollVerdict(pollRatio)}); ` +
        `server CPU ms/request ${cpuMs(result.polling.serverCpuMsPerRequest.poll)} against ` +
        `${cpuMs(result.polling.serverCpuMsPerRequest.projects)}`,
      `Lag at ${lag.writesPerSecond} writes/s (${lag.bulkUpdates} bulk updates): ${lag.writes} writes, ` +
        `${lag.entries} entries, ${lag.missing} missing, ${lag.failedBulkUpdates} failed bulk updates ` +
        `(bulk update p50 ${lag.bulkUpdateApi.p50Ms} ms, p99 ${lag.bulkUpdateApi.p99Ms} ms)`,
      `  published by the ticket service p50 ${lag.published.p50Ms} ms, p99 ${lag.published.p99Ms} ms, max ${lag.published.maxMs} ms`,
      `  recorded_at - occurred_at p50 ${lag.recorded.p50Ms} ms, p99 ${lag.recorded.p99Ms} ms, max ${lag.recorded.maxMs} ms ` +
        `(target p99 < ${ACTIVITY_TARGETS.lagP99Ms} ms: ${verdict(result.met.lag)})`,
      `  visible to a reader p50 ${lag.visible.p50Ms} ms, p99 ${lag.visible.p99Ms} ms, max ${lag.visible.maxMs} ms`,
      `  worst recorded lag per second of load (ms): ${lag.worstBySecond.join(', ')}`,
      `  consumer: ${lag.consumer.events} events at ${lag.consumer.eventsPerSecond}/s; CPU s ` +
        `${JSON.stringify(lag.cpu?.seconds)}, machine ${Math.round((lag.cpu?.machineBusy ?? 0) * 100)}% busy`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${options.out}`);
    const failures = [...Object.values(reads), ...Object.values(polling)].some(
      (summary) => summary.non2xx + summary.errors > 0,
    );
    if (failures || lag.missing > 0 || lag.failedBulkUpdates > 0 || lag.entries !== lag.writes)
      process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}
