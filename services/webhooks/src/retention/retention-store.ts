/** SQL that forgets old data: deliveries, the event ids (and bodies) they used, deleted subscriptions. */
import type pg from 'pg';

/** Rows deleted per statement, so no statement holds locks for long. */
const BATCH = 5_000;

export interface RetentionCounts {
  deliveries: number;
  events: number;
  webhooks: number;
}

async function deleteInBatches(pool: pg.Pool, text: string, values: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(text, values);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) return total;
  }
}

/**
 * Deletes deliveries created more than `days` days ago, then event ids processed more than `days`
 * days ago that no remaining delivery uses (a recent redelivery keeps its event), then subscriptions
 * deleted more than `days` days ago (with their deliveries).
 */
export async function deleteExpired(pool: pg.Pool, days: number): Promise<RetentionCounts> {
  const deliveries = await deleteInBatches(
    pool,
    `DELETE FROM deliveries WHERE id IN (
       SELECT id FROM deliveries WHERE created_at < now() - $1::int * interval '1 day' LIMIT ${BATCH})`,
    [days],
  );
  const events = await deleteInBatches(
    pool,
    `DELETE FROM processed_events WHERE event_id IN (
       SELECT p.event_id FROM processed_events p
        WHERE p.processed_at < now() - $1::int * interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = p.event_id)
        LIMIT ${BATCH})`,
    [days],
  );
  const webhooks = await deleteInBatches(
    pool,
    `DELETE FROM webhooks WHERE id IN (
       SELECT id FROM webhooks WHERE deleted_at < now() - $1::int * interval '1 day' LIMIT ${BATCH})`,
    [days],
  );
  return { deliveries, events, webhooks };
}
