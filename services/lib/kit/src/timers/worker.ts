/**
 * The timer worker: fires the durable timers of one service database (timers.ts), exactly once across
 * replicas and restarts (docs/architecture.md, "Durable timers").
 *
 * - **Claim** (one autocommitted statement): up to `batchSize` due rows, `FOR UPDATE SKIP LOCKED` so
 *   replicas take different rows, get `attempts + 1` and a short lease in `locked_until`. The attempt
 *   is committed before any handler runs, so a timer whose handler kills the process is counted too.
 * - **Fire** (one transaction per batch): the claimed rows are locked again (only those still carrying
 *   this claim: a timer rescheduled or cancelled meanwhile is left alone); each handler runs in a
 *   savepoint with the transaction's client, and the fired timers are deleted in the same commit. The
 *   handler's writes and the deletion commit together or not at all: exactly once. A worker killed
 *   mid-batch loses its connection, PostgreSQL rolls the batch back, and the timers are claimed again
 *   once the lease ends (`leaseMs`).
 * - A handler that throws is rolled back to its savepoint and retried with the kit's backoff; one
 *   that hangs is cut off after `handlerTimeoutMs` (the connection is dropped, which rolls the batch
 *   back; `statement_timeout` and `idle_in_transaction_session_timeout` bound it on the server side
 *   even when the process itself is stuck). A timer claimed before (it failed, or its batch never
 *   committed) is fired in a batch of its own, so one poisonous timer cannot take others with it;
 *   after `maxAttempts` claims it is dead-lettered: kept, with `dead_at` and `last_error`.
 * - **Sleep** until the next due time (asked of the database, so its clock decides), at most
 *   `maxSleepMs`; scheduleTimer's NOTIFY wakes the worker early when a nearer timer is scheduled, and
 *   the bound caps what a lost notification (a dropped LISTEN connection) costs.
 */
import pg from 'pg';
import { Backoff, backoffDelay, type BackoffPolicy } from '../backoff.js';
import type { Logger } from '../logger.js';
import { timerMetrics } from '../metrics.js';
import { TIMERS_CHANNEL } from './timers.js';

/** A timer being fired, as its handler sees it. */
export interface DueTimer {
  key: string;
  /** The instant it was scheduled for (retries keep it). */
  dueAt: Date;
  payload: unknown;
  /** 1 on the first attempt. */
  attempts: number;
}

/**
 * Acts on one due timer with `tx`, the transaction that deletes the timer: write through it (an
 * outbox event, a state change) and do not COMMIT or ROLLBACK it. Throwing retries the timer later.
 */
export type TimerHandler = (tx: pg.PoolClient, timer: DueTimer) => Promise<void>;

export interface TimerWorkerOptions {
  /** The service's own database (where `timers` lives). */
  connectionString: string;
  logger: Logger;
  handler: TimerHandler;
  /** Names the worker in its logs, e.g. "sla timers". */
  name?: string;
  /** Timers claimed and fired per transaction (default 100). */
  batchSize?: number;
  /** Longest sleep without a look at the table (default 5 s): bounds a lost notification. */
  maxSleepMs?: number;
  /** How long a claim keeps other workers off a timer whose batch has not committed (default 2 s). */
  leaseMs?: number;
  /** Longest a handler may run (default 10 s); also each statement's timeout in the batch. */
  handlerTimeoutMs?: number;
  /** Claims after which a timer is dead-lettered (default 10). */
  maxAttempts?: number;
  /** Delay before retrying a timer whose handler failed (default 1 s doubling to 5 min). */
  retryBackoff?: BackoffPolicy;
}

export interface TimerWorker {
  /** Fires everything due now (or joins the pass under way); resolves with how many fired. */
  drain(): Promise<number>;
  /** Timers due and not yet fired (dead-lettered ones excluded). */
  due(): Promise<number>;
  /** No more batches; resolves once the batch under way has committed or rolled back. */
  stop(): Promise<void>;
}

/** Failed handlers: 1 s, doubling, capped at 5 min. */
export const TIMER_RETRY_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 300_000 };

/** Sleep when timers are due but another worker holds them (its commit deletes them). */
const HELD_ELSEWHERE_RECHECK_MS = 250;

interface ClaimedRow {
  key: string;
  due_at: Date;
  payload: unknown;
  attempts: number;
  claim: string;
}

// The due rows in order; of those claimed before (attempts > 0: they failed, or their batch never
// committed) only the first, which then fires alone.
const CLAIM_SQL = `
WITH candidates AS (
  SELECT key, attempts, due_at FROM timers
   WHERE due_at <= now() AND dead_at IS NULL AND (locked_until IS NULL OR locked_until <= now())
   ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED
), chosen AS (
  SELECT key FROM candidates WHERE attempts = 0
  UNION ALL
  (SELECT key FROM candidates WHERE attempts > 0 ORDER BY due_at LIMIT 1)
)
UPDATE timers t SET attempts = t.attempts + 1, locked_until = now() + $2 * interval '1 millisecond'
  FROM chosen WHERE t.key = chosen.key
RETURNING t.key, t.due_at, t.payload, t.attempts, t.locked_until::text AS claim`;

// Milliseconds from the database's now to the next time a timer may be claimed (null: none), and
// that now, so that notified instants (epoch ms) compare on the database's clock.
const NEXT_DUE_SQL = `
SELECT extract(epoch FROM LEAST(
         (SELECT min(due_at) FROM timers WHERE locked_until IS NULL AND dead_at IS NULL),
         (SELECT min(locked_until) FROM timers WHERE locked_until IS NOT NULL AND dead_at IS NULL)
       ) - now()) * 1000 AS delay_ms,
       extract(epoch FROM now()) * 1000 AS now_ms`;

const RECORD_FAILURE_SQL = `
UPDATE timers SET locked_until = now() + $2 * interval '1 millisecond', last_error = $3,
  dead_at = CASE WHEN attempts >= $4 THEN now() END
 WHERE key = $1
RETURNING dead_at IS NOT NULL AS dead`;

class HandlerTimeout extends Error {
  constructor(key: string, ms: number) {
    super(`timer ${key}: handler still running after ${ms} ms`);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, key: string): Promise<T> {
  // A handler that settles after its timeout must not become an unhandled rejection.
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeout(key, ms)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return String(error instanceof Error ? error.message : error).slice(0, 1_000);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** Starts firing the database's due timers; runs until stop(). */
export function startTimerWorker(options: TimerWorkerOptions): TimerWorker {
  const { logger, handler } = options;
  const name = options.name ?? 'timer worker';
  const batchSize = positiveInteger('batchSize', options.batchSize ?? 100);
  const maxSleepMs = positiveInteger('maxSleepMs', options.maxSleepMs ?? 5_000);
  const leaseMs = positiveInteger('leaseMs', options.leaseMs ?? 2_000);
  const handlerTimeoutMs = positiveInteger('handlerTimeoutMs', options.handlerTimeoutMs ?? 10_000);
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts ?? 10);
  const retryPolicy = options.retryBackoff ?? TIMER_RETRY_BACKOFF;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  pool.on('error', (error) => logger.warn({ err: error }, `${name}: idle database connection failed`));
  const metrics = timerMetrics();
  const count = async () => {
    const { rows } = await pool.query<{ due: number; dead: number }>(
      `SELECT count(*) FILTER (WHERE due_at <= now() AND dead_at IS NULL)::int AS due,
              count(*) FILTER (WHERE dead_at IS NOT NULL)::int AS dead FROM timers`,
    );
    return rows[0] ?? { due: 0, dead: 0 };
  };
  const unwatchCounts = metrics.watchCounts(count);

  let stopped = false;
  let listener: pg.Client | undefined;
  // The earliest instant (epoch ms) notified since the loop last looked at the table, and the
  // instant (database clock) the loop plans to look next: a nearer notification wakes it.
  let earliestNotified = Infinity;
  let wakeAt = -Infinity;
  let wake: (() => void) | undefined;
  const notified = (dueMs: number) => {
    earliestNotified = Math.min(earliestNotified, dueMs);
    if (dueMs < wakeAt) wake?.();
  };

  async function ensureListener(): Promise<void> {
    if (listener) return;
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on('error', (error) => {
      logger.warn({ err: error }, `${name}: LISTEN connection lost; looking every ${maxSleepMs} ms`);
      listener = undefined;
      client.end().catch(() => undefined);
    });
    client.on('notification', (message) => {
      const dueMs = Number(message.payload);
      notified(Number.isFinite(dueMs) ? dueMs : -Infinity);
    });
    await client.connect();
    await client.query(`LISTEN ${TIMERS_CHANNEL}`);
    listener = client;
    // Anything scheduled while nobody listened: look once more now.
    notified(-Infinity);
  }

  async function recordFailure(db: Pick<pg.ClientBase, 'query'>, timer: ClaimedRow, error: unknown) {
    metrics.failures.inc();
    const delay = backoffDelay(timer.attempts - 1, retryPolicy);
    const { rows } = await db.query<{ dead: boolean }>(RECORD_FAILURE_SQL, [
      timer.key,
      delay,
      errorText(error),
      maxAttempts,
    ]);
    if (rows[0]?.dead) {
      metrics.deadLettered.inc();
      logger.error(
        { err: error, timer: timer.key, attempts: timer.attempts },
        `${name}: timer handler failed on its last attempt; the timer is dead-lettered`,
      );
    } else {
      logger.warn(
        { err: error, timer: timer.key, attempts: timer.attempts, retry_in_ms: delay },
        `${name}: timer handler failed; retrying`,
      );
    }
  }

  /** Fires the claimed timers in one transaction; answers how many fired (none when a handler hung). */
  async function fire(claimed: ClaimedRow[]): Promise<number> {
    const client = await pool.connect();
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost ??= error;
    };
    client.on('error', onError);
    let hung: { timer: ClaimedRow; error: HandlerTimeout } | undefined;
    const fired: ClaimedRow[] = [];
    try {
      await client.query(
        `BEGIN; SET LOCAL statement_timeout = ${handlerTimeoutMs}; ` +
          `SET LOCAL idle_in_transaction_session_timeout = ${handlerTimeoutMs + 5_000}`,
      );
      const { rows: held } = await client.query<{ key: string }>(
        'SELECT key FROM timers WHERE key = ANY($1::text[]) AND locked_until = $2::timestamptz FOR UPDATE SKIP LOCKED',
        [claimed.map((timer) => timer.key), claimed[0]!.claim],
      );
      const heldKeys = new Set(held.map((row) => row.key));
      for (const timer of claimed) {
        // Rescheduled, cancelled or (after a long pause here) claimed by another worker meanwhile.
        if (!heldKeys.has(timer.key)) continue;
        if (timer.attempts > maxAttempts) {
          // Its earlier batches never committed (the process died or hung): give up without running it.
          await recordFailure(client, timer, new Error(`not fired after ${maxAttempts} attempts`));
          continue;
        }
        await client.query('SAVEPOINT timer');
        try {
          const due: DueTimer = {
            key: timer.key,
            dueAt: timer.due_at,
            payload: timer.payload,
            attempts: timer.attempts,
          };
          await withTimeout(
            Promise.resolve().then(() => handler(client, due)),
            handlerTimeoutMs,
            timer.key,
          );
          await client.query('RELEASE SAVEPOINT timer');
          fired.push(timer);
        } catch (error) {
          if (error instanceof HandlerTimeout) {
            hung = { timer, error };
            throw error;
          }
          await client.query('ROLLBACK TO SAVEPOINT timer');
          await recordFailure(client, timer, error);
        }
      }
      if (fired.length > 0)
        await client.query('DELETE FROM timers WHERE key = ANY($1::text[])', [fired.map((t) => t.key)]);
      await client.query('COMMIT');
    } catch (error) {
      // A hung handler may still be using the connection: drop it (PostgreSQL rolls back).
      client.off('error', onError);
      client.release(hung ? hung.error : (lost ?? true));
      if (!hung) throw error;
      await abandonBatch(claimed, hung);
      return 0;
    }
    client.off('error', onError);
    client.release(lost);
    const now = Date.now();
    for (const timer of fired) metrics.lateness.observe(Math.max(0, now - timer.due_at.getTime()) / 1000);
    metrics.fired.inc(fired.length);
    return fired.length;
  }

  /** After a hung handler: its timer is charged and retried later; the rest of the batch is free again. */
  async function abandonBatch(claimed: ClaimedRow[], hung: { timer: ClaimedRow; error: HandlerTimeout }) {
    await recordFailure(pool, hung.timer, hung.error);
    await pool.query(
      'UPDATE timers SET locked_until = NULL WHERE key = ANY($1::text[]) AND locked_until = $2::timestamptz',
      [claimed.filter((timer) => timer !== hung.timer).map((timer) => timer.key), claimed[0]!.claim],
    );
  }

  /** One claim and its firing; answers how many were claimed and fired. */
  async function fireBatch(): Promise<{ claimed: number; fired: number }> {
    const { rows } = await pool.query<ClaimedRow>(CLAIM_SQL, [batchSize, leaseMs]);
    if (rows.length === 0) return { claimed: 0, fired: 0 };
    rows.sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || (a.key < b.key ? -1 : 1));
    // A timer claimed before fires alone (see CLAIM_SQL), the others together.
    const retried = rows.filter((row) => row.attempts > 1);
    const fresh = rows.filter((row) => row.attempts <= 1);
    let fired = 0;
    for (const batch of [...retried.map((row) => [row]), fresh]) {
      if (batch.length > 0) fired += await fire(batch);
    }
    return { claimed: rows.length, fired };
  }

  let running: Promise<number> | undefined;
  const drain = (): Promise<number> => {
    running ??= (async () => {
      let total = 0;
      while (!stopped) {
        const { claimed, fired } = await fireBatch();
        total += fired;
        if (claimed === 0) break;
      }
      return total;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    const errorBackoff = new Backoff();
    let outageLogged = false;
    while (!stopped) {
      try {
        await ensureListener().catch((error: unknown) =>
          logger.debug({ err: error }, `${name}: LISTEN unavailable`),
        );
        earliestNotified = Infinity;
        wakeAt = Infinity; // a notification during the pass is kept in earliestNotified
        const fired = await drain();
        if (fired > 0) logger.debug({ fired }, `${name}: fired`);
        const { rows } = await pool.query<{ delay_ms: number | null; now_ms: number }>(NEXT_DUE_SQL);
        const next = rows[0]!;
        if (outageLogged) logger.info(`${name}: firing timers again`);
        outageLogged = false;
        errorBackoff.reset();
        const delayMs = next.delay_ms === null ? maxSleepMs : Math.min(Number(next.delay_ms), maxSleepMs);
        const sleepMs = delayMs > 0 ? Math.ceil(delayMs) : HELD_ELSEWHERE_RECHECK_MS;
        wakeAt = Number(next.now_ms) + sleepMs;
        if (earliestNotified < wakeAt || stopped) continue;
        await sleep(sleepMs);
      } catch (error) {
        if (!outageLogged)
          logger.warn({ err: error }, `${name}: cannot fire timers; they stay in the table and are retried`);
        outageLogged = true;
        wakeAt = -Infinity;
        if (!stopped) await sleep(errorBackoff.next());
      }
    }
  })();

  return {
    drain,
    due: async () => (await count()).due,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await running?.catch(() => undefined);
      unwatchCounts();
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
