/**
 * Keeps the logs for ACTIVITY_RETENTION_DAYS: once shortly after start and then every hour, entries
 * and streamed events recorded before the cutoff are deleted, oldest first, in batches. Each log's
 * floor (the highest number removed) is raised *before* its rows go, so a cursor below it is answered
 * as expired rather than silently skipping what was removed. Everything up to the floor goes, so
 * "below the floor" and "lost entries" are the same thing. Replicas may run it at once: the floor
 * only rises and the deletes are idempotent.
 */
import type pg from 'pg';
import { startSweepJob, type Logger, type PeriodicJob } from '@tix/kit';
import type { LogName } from '../log/log-store.js';

/** Rows deleted per statement, so a large sweep never holds long locks. */
export const SWEEP_BATCH = 5_000;

const NUMBER_OF: Record<LogName, string> = { activities: 'id', events: 'sequence' };

export type SweepCounts = Record<LogName, number>;

/** Removes what was recorded before `cutoff` from both logs; returns how many rows each lost. */
export async function sweepLogs(pool: pg.Pool, cutoff: Date): Promise<SweepCounts> {
  const counts: SweepCounts = { activities: 0, events: 0 };
  for (const log of ['activities', 'events'] as const) {
    const column = NUMBER_OF[log];
    const newest = await pool.query<{ floor: string | null }>(
      `SELECT max(${column}) AS floor FROM ${log} WHERE recorded_at < $1`,
      [cutoff],
    );
    const floor = newest.rows[0]?.floor;
    if (floor === null || floor === undefined) continue;
    await pool.query(
      `INSERT INTO retention_floors (log, floor) VALUES ($1, $2)
       ON CONFLICT (log) DO UPDATE SET floor = GREATEST(retention_floors.floor, EXCLUDED.floor)`,
      [log, floor],
    );
    for (;;) {
      const deleted = await pool.query(
        `DELETE FROM ${log} WHERE ${column} IN
           (SELECT ${column} FROM ${log} WHERE ${column} <= $1 ORDER BY ${column} LIMIT $2)`,
        [floor, SWEEP_BATCH],
      );
      counts[log] += deleted.rowCount ?? 0;
      if ((deleted.rowCount ?? 0) < SWEEP_BATCH) break;
    }
  }
  return counts;
}

/** Starts the hourly sweep; the first runs shortly after start. */
export function startRetentionJob(options: {
  pool: pg.Pool;
  retentionDays: number;
  logger: Logger;
  intervalMs?: number;
}): PeriodicJob<SweepCounts> {
  return startSweepJob({
    name: 'retention sweep',
    intervalMs: options.intervalMs,
    logger: options.logger,
    sweep: () => sweepLogs(options.pool, new Date(Date.now() - options.retentionDays * 86_400_000)),
    deleted: (counts) => counts.activities + counts.events,
    message: 'retention: swept expired activity',
  });
}
