/**
 * Idempotency records of ticket creation (table ticket_idempotency, written by the create statement
 * in ticket-write-store.ts): a record answers retries for IDEMPOTENCY_WINDOW_SECONDS, the spec's
 * retention, like the gateway's stored response; after that the key may create again. The sweep
 * deletes records once they are RECORD_RETENTION_SECONDS old: once at start, then every hour. Rows
 * past the window but not yet swept are inert (a create under their scope replaces them), so the
 * sweep only keeps the table small. Several replicas may sweep at once; the delete is idempotent.
 */
import type pg from 'pg';
import { startSweepJob, type Logger, type PeriodicJob } from '@tix/kit';
import { prepared } from '../db.js';

/** How long a recorded key answers a retry with its ticket (spec: idempotency retention 1 hour). */
export const IDEMPOTENCY_WINDOW_SECONDS = 3_600;
/** How long a record is kept before the sweep deletes it. */
export const RECORD_RETENTION_SECONDS = 86_400;
/** The gateway's message for a key reused with another payload (gateway/src/limits/idempotency.ts). */
export const IDEMPOTENCY_MISMATCH_MESSAGE = 'Idempotency-Key was already used with a different request';

const DELETE_EXPIRED = `
  DELETE FROM ticket_idempotency WHERE created_at < now() - make_interval(secs => $1)`;

/** Deletes the records older than `retentionSeconds`; returns how many. */
export async function deleteExpiredIdempotencyRecords(
  pool: pg.Pool,
  retentionSeconds = RECORD_RETENTION_SECONDS,
): Promise<number> {
  const result = await pool.query(prepared(DELETE_EXPIRED, [retentionSeconds]));
  return result.rowCount ?? 0;
}

/** Starts the periodic sweep; the first pass runs shortly after start. */
export function startIdempotencySweep(options: {
  pool: pg.Pool;
  logger: Logger;
  intervalMs?: number;
  retentionSeconds?: number;
}): PeriodicJob<number> {
  return startSweepJob({
    name: 'idempotency sweep',
    intervalMs: options.intervalMs,
    logger: options.logger,
    sweep: () => deleteExpiredIdempotencyRecords(options.pool, options.retentionSeconds),
    deleted: (deleted) => deleted,
    message: 'idempotency sweep: deleted expired records',
    fields: (deleted) => ({ deleted }),
  });
}
