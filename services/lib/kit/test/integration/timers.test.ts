import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import {
  cancelTimer,
  inTransaction,
  metricsRegistry,
  scheduleTimer,
  type TimerWorker,
} from '../../src/index.js';
import {
  createTestDatabase,
  eventually,
  metricValue,
  startTestProcess,
  type TestDatabase,
  type TestProcess,
} from '../../src/testing/index.js';
import { FIRED_TABLE, recordFired, startTestWorker, TIMERS_TABLE } from './fixtures/timers.js';

const WORKER_PROCESS = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures/processes/timer-worker.ts',
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface FiredRow {
  key: string;
  attempts: number;
  worker: string;
  payload: unknown;
  late_ms: number;
}

describe('durable timers', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let pool: pg.Pool;
  const workers: TimerWorker[] = [];
  const processes: TestProcess[] = [];

  before(async () => {
    database = await createTestDatabase('timers');
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    pool.on('error', () => undefined);
    await pool.query(TIMERS_TABLE);
    await pool.query(FIRED_TABLE);
  });

  beforeEach(async () => {
    await pool.query('TRUNCATE timers, fired');
  });

  afterEach(async () => {
    for (const child of processes.splice(0)) await child.kill();
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });

  after(async () => {
    await pool.end();
    await database.drop();
  });

  const worker = (name: string, options: Parameters<typeof startTestWorker>[2] = {}) => {
    const started = startTestWorker(database.url, name, options);
    workers.push(started);
    return started;
  };

  async function fired(): Promise<FiredRow[]> {
    const { rows } = await pool.query<FiredRow>(
      `SELECT key, attempts, worker, payload,
              (extract(epoch FROM fired_at - due_at) * 1000)::float8 AS late_ms
         FROM fired ORDER BY fired_at`,
    );
    return rows;
  }

  async function firedCount(): Promise<number> {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM fired');
    return rows[0]!.n;
  }

  async function timerRow(key: string) {
    const { rows } = await pool.query<{
      due_at: Date;
      payload: unknown;
      attempts: number;
      dead_at: Date | null;
      last_error: string | null;
    }>('SELECT due_at, payload, attempts, dead_at, last_error FROM timers WHERE key = $1', [key]);
    return rows[0];
  }

  /** `count` timers `timer-<i>`, due from `firstDue` over `spreadMs`, scheduled in `transactions` parallel transactions. */
  async function scheduleMany(count: number, firstDue: number, spreadMs: number, transactions = 4) {
    const per = Math.ceil(count / transactions);
    await Promise.all(
      Array.from({ length: transactions }, (_, t) =>
        inTransaction(pool, async (tx) => {
          for (let i = t * per; i < Math.min(count, (t + 1) * per); i += 1) {
            const dueAt = new Date(firstDue + Math.floor((i * spreadMs) / count));
            await scheduleTimer(tx, { key: `timer-${i}`, dueAt, payload: { i } });
          }
        }),
      ),
    );
  }

  /** Each of `count` timers fired exactly once. */
  function expectEachOnce(rows: FiredRow[], count: number) {
    const perKey = new Map<string, number>();
    for (const row of rows) perKey.set(row.key, (perKey.get(row.key) ?? 0) + 1);
    const twice = [...perKey].filter(([, n]) => n > 1).map(([key]) => key);
    expect(twice, 'fired more than once').to.deep.equal([]);
    expect(perKey.size).to.equal(count);
    for (let i = 0; i < count; i += 1) expect(perKey.has(`timer-${i}`), `timer-${i}`).to.equal(true);
  }

  it('schedules, moves and cancels inside the caller’s transaction; a rollback changes nothing', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000);
    await scheduleTimer(pool, { key: 'kept', dueAt: inAnHour, payload: { v: 1 } });
    await scheduleTimer(pool, { key: 'to-cancel', dueAt: inAnHour, payload: null });
    const rolledBack = await inTransaction(pool, async (tx) => {
      await scheduleTimer(tx, { key: 'kept', dueAt: new Date(Date.now() + 100), payload: { v: 2 } });
      expect(await cancelTimer(tx, 'to-cancel')).to.equal(true);
      await scheduleTimer(tx, { key: 'never', dueAt: new Date(Date.now() + 100) });
      throw new Error('roll back');
    }).catch((error: Error) => error.message);
    expect(rolledBack).to.equal('roll back');
    worker('rollback-worker', { maxSleepMs: 200 });
    await sleep(700);
    expect(await firedCount()).to.equal(0);
    expect((await timerRow('kept'))?.due_at.getTime()).to.equal(inAnHour.getTime());
    expect((await timerRow('kept'))?.payload).to.deep.equal({ v: 1 });
    expect(await timerRow('to-cancel')).to.not.equal(undefined);
    expect(await timerRow('never')).to.equal(undefined);

    // Committed, the same calls take effect: the moved timer fires once, with its new payload.
    await inTransaction(pool, async (tx) => {
      await scheduleTimer(tx, { key: 'kept', dueAt: new Date(Date.now() + 100), payload: { v: 2 } });
      expect(await cancelTimer(tx, 'to-cancel')).to.equal(true);
    });
    await eventually(async () => (await firedCount()) === 1);
    await sleep(300);
    const rows = await fired();
    expect(rows.map((row) => [row.key, row.payload])).to.deep.equal([['kept', { v: 2 }]]);
    expect(await timerRow('kept')).to.equal(undefined);
    expect(await timerRow('to-cancel')).to.equal(undefined);
    expect(await cancelTimer(pool, 'kept')).to.equal(false);
  });

  it('wakes on NOTIFY: a timer 50 ms ahead fires on time while the worker sleeps on one an hour away', async () => {
    await scheduleTimer(pool, { key: 'in-an-hour', dueAt: new Date(Date.now() + 3_600_000) });
    // Without the notification it would sleep a minute: only the NOTIFY path can fire it in time.
    worker('notify-worker', { maxSleepMs: 60_000 });
    await sleep(500);
    await scheduleTimer(pool, { key: 'soon', dueAt: new Date(Date.now() + 50) });
    await eventually(async () => (await firedCount()) === 1, 5_000);
    const [row] = await fired();
    expect(row!.key).to.equal('soon');
    expect(row!.late_ms).to.be.at.least(0);
    expect(row!.late_ms, 'lateness (ms)').to.be.below(1_000);
    expect(await timerRow('in-an-hour')).to.not.equal(undefined);
  });

  it('a lost LISTEN connection costs at most the longest sleep, and the worker listens again', async () => {
    worker('unheard-worker', { maxSleepMs: 1_000 });
    const listenerPid = async () => {
      const { rows } = await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN timers'`,
      );
      return rows[0]?.pid;
    };
    const pid = await eventually(listenerPid);
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await scheduleTimer(pool, { key: 'unheard', dueAt: new Date(Date.now() + 50) });
    await eventually(async () => (await firedCount()) === 1, 5_000);
    const [row] = await fired();
    expect(row!.late_ms, 'lateness (ms)').to.be.below(2_500);
    // And it listens again, on a new connection.
    const again = await eventually(async () => {
      const now = await listenerPid();
      return now !== undefined && now !== pid ? now : undefined;
    });
    expect(again).to.be.a('number');
  });

  it('fires 2,000 timers due within seconds exactly once across two workers, within 5 s of their instant', async () => {
    const before = metricValue(await metricsRegistry.metrics(), 'tix_timers_fired_total');
    worker('worker-a');
    worker('worker-b');
    await sleep(200);
    const COUNT = 2_000;
    const scheduling = Date.now();
    await scheduleMany(COUNT, Date.now() + 3_000, 2_000);
    const schedulingMs = Date.now() - scheduling;
    await eventually(async () => (await firedCount()) >= COUNT, 20_000, 100);
    await sleep(1_000);
    const rows = await fired();
    expectEachOnce(rows, COUNT);
    const late = rows.map((row) => row.late_ms).sort((a, b) => a - b);
    const p = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
    const byWorker = { a: 0, b: 0 };
    for (const row of rows) byWorker[row.worker === 'worker-a' ? 'a' : 'b'] += 1;
    console.log(
      `      2,000 timers (scheduled in ${schedulingMs} ms): lateness p50 ${p(0.5).toFixed(1)} ms, ` +
        `p99 ${p(0.99).toFixed(1)} ms, max ${late.at(-1)!.toFixed(1)} ms; fired by a ${byWorker.a}, b ${byWorker.b}`,
    );
    expect(late[0], 'fired before its instant').to.be.at.least(0);
    expect(late.at(-1), 'max lateness (ms)').to.be.below(5_000);
    expect(byWorker.a, 'worker a fired some').to.be.greaterThan(0);
    expect(byWorker.b, 'worker b fired some').to.be.greaterThan(0);
    const metrics = await metricsRegistry.metrics();
    expect(metricValue(metrics, 'tix_timers_fired_total') - before).to.equal(COUNT);
    expect(metricValue(metrics, 'tix_timer_lateness_seconds_count')).to.be.at.least(COUNT);
    expect(metricValue(metrics, 'tix_timers_due')).to.equal(0);
  });

  it('a worker SIGKILLed mid-batch: the other and a restarted one fire the rest, none twice', async () => {
    const COUNT = 600;
    await scheduleMany(COUNT, Date.now(), 0);
    const env = { TIMERS_DATABASE_URL: database.url, HANDLER_DELAY_MS: '10', BATCH_SIZE: '50' };
    const first = startTestProcess(WORKER_PROCESS, { ...env, WORKER_NAME: 'killed' });
    processes.push(first);
    // Killed once it has committed a batch or two, while it runs the next.
    await eventually(async () => (await firedCount()) >= 50, 30_000, 10);
    await first.kill();
    const atKill = await firedCount();
    expect(atKill, 'fired before the kill').to.be.below(COUNT);
    const killedAt = Date.now();
    worker('survivor', { batchSize: 50 });
    processes.push(startTestProcess(WORKER_PROCESS, { ...env, WORKER_NAME: 'restarted' }));
    await eventually(async () => (await firedCount()) >= COUNT, 60_000, 50);
    const recoveredMs = Date.now() - killedAt;
    await sleep(1_000);
    const rows = await fired();
    expectEachOnce(rows, COUNT);
    // The killed batch was claimed (attempt 1) and rolled back; its timers fired on a later attempt.
    const retried = rows.filter((row) => row.attempts > 1);
    console.log(
      `      SIGKILL after ${atKill} of ${COUNT}: ${retried.length} timers of the killed batch fired again ` +
        `(by ${[...new Set(retried.map((row) => row.worker))].join(', ')}); all done ${recoveredMs} ms after the kill`,
    );
    expect(retried.length, 'timers of the killed batch').to.be.greaterThan(0);
    expect(retried.every((row) => row.worker !== 'killed')).to.equal(true);
    const { rows: left } = await pool.query('SELECT key FROM timers');
    expect(left).to.deep.equal([]);
  });

  it('retries a failing handler with backoff, rolls back what it wrote, and dead-letters it after N attempts', async () => {
    const calls = new Map<string, number>();
    worker('retry-worker', {
      maxAttempts: 3,
      retryBackoff: { initialMs: 50, maxMs: 100 },
      handler: async (tx, timer) => {
        calls.set(timer.key, (calls.get(timer.key) ?? 0) + 1);
        await recordFired(tx, 'retry-worker', timer);
        if (timer.key === 'poison') throw new Error('poison always fails');
        if (timer.key === 'flaky' && timer.attempts === 1) throw new Error('flaky fails once');
      },
    });
    const now = Date.now();
    await inTransaction(pool, async (tx) => {
      for (const key of ['poison', 'flaky', 'fine']) await scheduleTimer(tx, { key, dueAt: new Date(now) });
    });
    await eventually(async () => (await timerRow('poison'))?.dead_at, 10_000);
    await eventually(async () => (await firedCount()) === 2);
    await sleep(500);
    const rows = await fired();
    expect(rows.map((row) => [row.key, row.attempts]).sort()).to.deep.equal([
      ['fine', 1],
      ['flaky', 2],
    ]);
    expect(calls.get('poison')).to.equal(3);
    const poison = await timerRow('poison');
    expect(poison?.attempts).to.equal(3);
    expect(poison?.last_error).to.equal('poison always fails');
    const metrics = await metricsRegistry.metrics();
    expect(metricValue(metrics, 'tix_timers_dead')).to.equal(1);

    // Scheduling the key again is a new timer: it fires again (and fails again) from attempt 1.
    await scheduleTimer(pool, { key: 'poison', dueAt: new Date() });
    await eventually(() => (calls.get('poison') ?? 0) >= 4);
    expect(await firedCount()).to.equal(2);
  });

  it('cuts off a handler that hangs; the rest of its batch fires once; the hung timer is dead-lettered', async () => {
    const calls = new Map<string, number>();
    worker('hang-worker', {
      maxAttempts: 2,
      handlerTimeoutMs: 300,
      retryBackoff: { initialMs: 50, maxMs: 100 },
      handler: async (tx, timer) => {
        calls.set(timer.key, (calls.get(timer.key) ?? 0) + 1);
        await recordFired(tx, 'hang-worker', timer);
        if (timer.key === 'hangs') await new Promise(() => undefined);
        if (timer.key === 'sleeps') await tx.query('SELECT pg_sleep(30)');
      },
    });
    const now = Date.now();
    await inTransaction(pool, async (tx) => {
      // In due order: two neighbours fire (and are rolled back) before the hang, three after.
      await scheduleTimer(tx, { key: 'timer-0', dueAt: new Date(now - 50) });
      await scheduleTimer(tx, { key: 'timer-1', dueAt: new Date(now - 40) });
      await scheduleTimer(tx, { key: 'hangs', dueAt: new Date(now - 30) });
      await scheduleTimer(tx, { key: 'sleeps', dueAt: new Date(now - 20) });
      await scheduleTimer(tx, { key: 'timer-2', dueAt: new Date(now - 10) });
      await scheduleTimer(tx, { key: 'timer-3', dueAt: new Date(now) });
    });
    await eventually(
      async () => (await timerRow('hangs'))?.dead_at && (await timerRow('sleeps'))?.dead_at,
      20_000,
    );
    await eventually(async () => (await firedCount()) === 4, 10_000);
    await sleep(500);
    expectEachOnce(await fired(), 4);
    expect(calls.get('hangs')).to.equal(2);
    expect((await timerRow('hangs'))?.last_error).to.match(/handler still running after 300 ms/);
    // A statement that hangs: the handler's timeout or the batch's statement_timeout, whichever first.
    expect((await timerRow('sleeps'))?.last_error).to.match(
      /handler still running after 300 ms|canceling statement due to statement timeout/,
    );
    // The connections of the cut-off attempts were dropped: none of this database's is left waiting.
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction'`,
    );
    expect(rows[0]!.n).to.equal(0);
  });
});
