/** SQL for reading the delivery log and queueing redeliveries (the API side of the deliveries table). */
import type pg from 'pg';
import { prepared } from '../db.js';

/** One recorded attempt, stored in the API's shape (deliveries.attempts is an array of these). */
export interface AttemptRecord {
  number: number;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: string;
  /** The start of the receiver's answer (body-excerpt.ts); null when none arrived. Absent in rows older than the field. */
  response_body?: string | null;
  response_body_truncated?: boolean;
}

export interface DeliveryRow {
  id: string;
  webhook_id: number;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: AttemptRecord[];
  created_at: Date;
  updated_at: Date;
  /** The body sent (the event's, shared by every delivery of it); null if it was never stored. */
  body: string | null;
}

/** Delivery log filters; absent ones do not filter. `since` inclusive, `until` exclusive (ISO 8601). */
export interface DeliveryFilter {
  status?: string | undefined;
  event?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export interface DeliveryLogStore {
  /** A page of the subscription's deliveries matching `filter`, newest first, and how many match. */
  page(
    webhookId: number,
    filter: DeliveryFilter,
    offset: number,
    limit: number,
  ): Promise<{ rows: DeliveryRow[]; total: number }>;
  /** The subscription's delivery `id`, or null. */
  find(webhookId: number, id: string): Promise<DeliveryRow | null>;
  /** Queues a new delivery of `eventId` to the subscription (pending, no attempts yet). */
  queueRedelivery(webhookId: number, eventId: string, eventType: string): Promise<DeliveryRow>;
  /**
   * Queues a redelivery of up to `limit` failed deliveries created at or after `since`, oldest
   * first, each the latest delivery of its event to the subscription (an event already redelivered
   * is not queued twice; one whose redelivery failed again is). Answers how many were queued and
   * how many such deliveries remain beyond the limit.
   */
  redeliverFailed(
    webhookId: number,
    since: string,
    limit: number,
  ): Promise<{ queued: number; remaining: number }>;
}

const COLUMNS =
  'd.id, d.webhook_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at, d.updated_at';

/** A filter's WHERE terms over deliveries d, for parameters $2..$5. */
const FILTERED = `d.webhook_id = $1
  AND ($2::delivery_status IS NULL OR d.status = $2::delivery_status)
  AND ($3::text IS NULL OR d.event_type = $3)
  AND ($4::timestamptz IS NULL OR d.created_at >= $4::timestamptz)
  AND ($5::timestamptz IS NULL OR d.created_at < $5::timestamptz)`;

/** Failed, at or after $2, and no later delivery of the same event to the same subscription. */
const REDELIVERABLE = `d.webhook_id = $1 AND d.status = 'failed' AND d.created_at >= $2::timestamptz
  AND NOT EXISTS (
    SELECT 1 FROM deliveries later
     WHERE later.webhook_id = d.webhook_id AND later.event_id = d.event_id
       AND (later.created_at, later.id) > (d.created_at, d.id)
  )`;

/** The store over `pool`. */
export function createDeliveryLogStore(pool: pg.Pool): DeliveryLogStore {
  return {
    async page(webhookId, filter, offset, limit) {
      const filters = [
        webhookId,
        filter.status ?? null,
        filter.event ?? null,
        filter.since ?? null,
        filter.until ?? null,
      ];
      const [page, count] = await Promise.all([
        pool.query<DeliveryRow>(
          prepared(
            `SELECT ${COLUMNS}, e.body FROM deliveries d JOIN processed_events e ON e.event_id = d.event_id
              WHERE ${FILTERED}
              ORDER BY d.created_at DESC, d.id DESC LIMIT $6 OFFSET $7`,
            [...filters, limit, offset],
          ),
        ),
        pool.query<{ total: number }>(
          prepared(`SELECT count(*)::int AS total FROM deliveries d WHERE ${FILTERED}`, filters),
        ),
      ]);
      return { rows: page.rows, total: count.rows[0]?.total ?? 0 };
    },

    async find(webhookId, id) {
      const { rows } = await pool.query<DeliveryRow>(
        prepared(
          `SELECT ${COLUMNS}, e.body FROM deliveries d JOIN processed_events e ON e.event_id = d.event_id
            WHERE d.id = $2 AND d.webhook_id = $1`,
          [webhookId, id],
        ),
      );
      return rows[0] ?? null;
    },

    async queueRedelivery(webhookId, eventId, eventType) {
      const { rows } = await pool.query<DeliveryRow>(
        prepared(
          `WITH d AS (
             INSERT INTO deliveries (webhook_id, event_id, event_type) VALUES ($1, $2, $3) RETURNING *
           )
           SELECT ${COLUMNS}, e.body FROM d JOIN processed_events e ON e.event_id = d.event_id`,
          [webhookId, eventId, eventType],
        ),
      );
      return rows[0]!;
    },

    async redeliverFailed(webhookId, since, limit) {
      // One statement: two concurrent calls may both queue an event (a duplicate, which receivers
      // must tolerate anyway), never lose one.
      const { rows } = await pool.query<{ queued: number; remaining: number }>(
        prepared(
          `WITH candidates AS (
             SELECT d.event_id, d.event_type, d.created_at, d.id FROM deliveries d WHERE ${REDELIVERABLE}
           ), chosen AS (
             SELECT event_id, event_type FROM candidates ORDER BY created_at, id LIMIT $3
           ), queued AS (
             INSERT INTO deliveries (webhook_id, event_id, event_type)
             SELECT $1, event_id, event_type FROM chosen
             RETURNING id
           )
           SELECT (SELECT count(*) FROM queued)::int AS queued,
                  ((SELECT count(*) FROM candidates) - (SELECT count(*) FROM chosen))::int AS remaining`,
          [webhookId, since, limit],
        ),
      );
      return rows[0] ?? { queued: 0, remaining: 0 };
    },
  };
}
