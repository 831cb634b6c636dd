/**
 * Durable timers: "do X at instant T", kept in the service's own database so they survive restarts
 * and fire exactly once across replicas (docs/architecture.md, "Durable timers"). A service schedules
 * a timer in the same transaction as the change that calls for it (scheduleTimer: an upsert by key, so
 * recomputing a deadline moves its timer; cancelTimer removes it); a rolled-back transaction leaves
 * the timers as they were. A TimerWorker (worker.ts) fires each timer in a transaction that also
 * deletes it, so what the handler writes (an outbox event, say) and the timer's end commit together.
 *
 * Table shape (copy into the service's schema.prisma; no trigger needed, scheduleTimer notifies):
 *
 *   /// Durable timers (shape owned by @tix/kit, see services/lib/kit/src/timers/timers.ts).
 *   model Timer {
 *     key         String    @id
 *     dueAt       DateTime  @map("due_at") @db.Timestamptz(3)
 *     payload     Json
 *     attempts    Int       @default(0)
 *     lockedUntil DateTime? @map("locked_until") @db.Timestamptz(3)
 *     lastError   String?   @map("last_error")
 *     deadAt      DateTime? @map("dead_at") @db.Timestamptz(3)
 *     createdAt   DateTime  @default(now()) @map("created_at") @db.Timestamptz(3)
 *
 *     @@index([dueAt])
 *     @@index([lockedUntil])
 *     @@map("timers")
 *   }
 *
 * - `due_at` is the instant the timer is for; it never moves on a retry (the handler and the lateness
 *   metric see the instant that was asked for).
 * - `locked_until` is the earliest time a worker may claim it again: set to now + lease when a worker
 *   claims it (so a worker that dies mid-batch gives it up after the lease), and to now + backoff
 *   after its handler failed. NULL (or past) means claimable once due.
 * - `attempts` counts claims (committed before the handler runs, so a timer whose handler crashes
 *   the process is counted too); `dead_at` is set once `maxAttempts` is reached: the row is kept,
 *   with `last_error`, and no longer fired (scheduling the key again revives it).
 *
 * Keys are the service's own, e.g. `sla:breach:<ticket id>`: one table serves every kind of timer a
 * service has, the handler dispatches on the key or the payload.
 */
import type pg from 'pg';

/** The table (one per service database). */
export const TIMERS_TABLE = 'timers';

/** The channel scheduleTimer notifies (payload: the due instant in epoch ms), so a sleeping worker wakes early. */
export const TIMERS_CHANNEL = 'timers';

/** A connection or a transaction's client: scheduleTimer and cancelTimer run where the caller runs them. */
export type TimerQueryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A timer to schedule: at `dueAt`, the worker's handler receives `payload`. */
export interface TimerSpec {
  key: string;
  dueAt: Date;
  /** JSON-serialisable; what the handler needs to act (ids, the kind of deadline). */
  payload?: unknown;
}

// The upsert and its NOTIFY in one statement (one round trip). PostgreSQL delivers the notification
// at commit, and never for a rolled-back transaction. Rescheduling resets the retry state and
// revives a dead-lettered key: it is a new timer under the same key.
const SCHEDULE_SQL = `
WITH scheduled AS (
  INSERT INTO timers (key, due_at, payload) VALUES ($1, $2, $3::jsonb)
  ON CONFLICT (key) DO UPDATE SET due_at = EXCLUDED.due_at, payload = EXCLUDED.payload,
    attempts = 0, locked_until = NULL, last_error = NULL, dead_at = NULL
  RETURNING due_at
)
SELECT pg_notify('${TIMERS_CHANNEL}', (floor(extract(epoch FROM due_at) * 1000))::bigint::text) FROM scheduled`;

/**
 * Schedules `spec.key` at `spec.dueAt` (inside the caller's transaction when `db` is one): creates
 * the timer, or moves an existing one to the new instant and payload.
 */
export async function scheduleTimer(db: TimerQueryable, spec: TimerSpec): Promise<void> {
  if (!(spec.dueAt instanceof Date) || Number.isNaN(spec.dueAt.getTime()))
    throw new TypeError(`scheduleTimer(${spec.key}): dueAt must be a valid Date`);
  if (spec.key.length === 0) throw new TypeError('scheduleTimer: the key must not be empty');
  await db.query(SCHEDULE_SQL, [spec.key, spec.dueAt, JSON.stringify(spec.payload ?? null)]);
}

/** Cancels the timer `key` (inside the caller's transaction); answers whether there was one to cancel. */
export async function cancelTimer(db: TimerQueryable, key: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM timers WHERE key = $1', [key]);
  return (rowCount ?? 0) > 0;
}
