/**
 * SQL for the delivery workers: the deliveries table as a work queue shared by every replica.
 * A worker claims due pending deliveries with FOR UPDATE SKIP LOCKED and a lease (next_attempt_at
 * pushed into the future, renewed while it holds them), so replicas never take the same delivery
 * and a crashed replica's deliveries become due again when the lease runs out. Deliveries of a
 * deleted subscription are never claimed (its delete ends them). Recording an
 * attempt is guarded by attempt_count, so a worker that lost its lease cannot record over another.
 */
import type pg from 'pg';
import { prepared } from '../db.js';
import type { AttemptRecord } from './delivery-log-store.js';

export interface ClaimedDelivery {
  id: string;
  webhook_id: number;
  event_id: string;
  event_type: string;
  /** Attempts already made (a resumed delivery continues with the next number). */
  attempt_count: number;
  url: string;
  /** Sealed (SecretBox). */
  secret: string;
  /** Sealed; the secret a rotation replaced, while it still signs (else null). */
  previous_secret: string | null;
  /** The event's delivery body; null only if the event matched nothing when it arrived. */
  body: string | null;
}

export interface AttemptResult {
  id: string;
  attempt: AttemptRecord;
  /** pending while retries remain, else delivered or failed. */
  status: 'pending' | 'delivered' | 'failed';
  /** For a pending delivery: when another worker may take it over (retry delay + lease). */
  holdMs: number;
}

export interface DeliveryQueueStore {
  /**
   * Claims up to `limit` due deliveries of live subscriptions, at most `perWebhook` of each, for
   * `leaseMs`, skipping the subscriptions `skipWebhookIds`.
   */
  claim(
    limit: number,
    perWebhook: number,
    leaseMs: number,
    skipWebhookIds: number[],
  ): Promise<ClaimedDelivery[]>;
  /**
   * Records attempts (one statement for many deliveries); answers the ids recorded. An id missing
   * from the answer is no longer this worker's to record (see header).
   */
  recordAttempts(results: AttemptResult[]): Promise<Set<string>>;
  /** Gives deliveries back to the queue, each due again at its `notBefore`. */
  release(entries: { id: string; notBefore: Date }[]): Promise<void>;
  /** Renews the lease of held deliveries. */
  extendLeases(ids: string[], leaseMs: number): Promise<void>;
  /** Ends a delivery without an attempt (its subscription was deleted). */
  abandon(id: string): Promise<void>;
  /** Which of `ids` are live (not deleted, active) subscriptions. */
  liveWebhooks(ids: number[]): Promise<Set<number>>;
}

/** The store over `pool`. */
export function createDeliveryQueueStore(pool: pg.Pool): DeliveryQueueStore {
  return {
    async claim(limit, perWebhook, leaseMs, skipWebhookIds) {
      // Live subscriptions in random order, up to `perWebhook` due deliveries of each: every
      // subscription gets its turn however deep another one's backlog is, and skipping one (its host
      // is saturated) costs nothing.
      const { rows } = await pool.query<ClaimedDelivery>(
        prepared(
          `WITH due AS (
             SELECT d.id FROM (
               SELECT id FROM webhooks
                WHERE deleted_at IS NULL AND is_active AND id <> ALL($4::int[])
                ORDER BY random()
             ) w
             CROSS JOIN LATERAL (
               SELECT id FROM deliveries
                WHERE webhook_id = w.id AND status = 'pending' AND next_attempt_at <= now()
                ORDER BY next_attempt_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED
             ) d
             LIMIT $1
           ), claimed AS (
             UPDATE deliveries d SET next_attempt_at = now() + $3::int * interval '1 millisecond'
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.attempt_count
           )
           SELECT c.id, c.webhook_id, c.event_id, c.event_type, c.attempt_count, w.url, w.secret,
                  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
                  e.body
             FROM claimed c
             JOIN webhooks w ON w.id = c.webhook_id
             JOIN processed_events e ON e.event_id = c.event_id`,
          [limit, perWebhook, leaseMs, skipWebhookIds],
        ),
      );
      return rows;
    },

    async recordAttempts(results) {
      if (results.length === 0) return new Set();
      const { rows } = await pool.query<{ id: string }>(
        prepared(
          `UPDATE deliveries d SET
             attempts = d.attempts || jsonb_build_array(jsonb_build_object(
               'number', v.number, 'response_code', v.response_code, 'duration_ms', v.duration_ms,
               'error', v.error, 'attempted_at', v.attempted_at,
               'response_body', v.response_body, 'response_body_truncated', v.response_body_truncated)),
             attempt_count = v.number,
             status = v.status::delivery_status,
             next_attempt_at = now() + v.hold_ms * interval '1 millisecond',
             updated_at = now()
           FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[],
                       $9::text[], $10::bool[])
             AS v(id, number, response_code, duration_ms, error, attempted_at, status, hold_ms,
                  response_body, response_body_truncated)
           WHERE d.id = v.id AND d.status = 'pending' AND d.attempt_count = v.number - 1
           RETURNING d.id`,
          [
            results.map((result) => result.id),
            results.map((result) => result.attempt.number),
            results.map((result) => result.attempt.response_code),
            results.map((result) => result.attempt.duration_ms),
            results.map((result) => result.attempt.error),
            results.map((result) => result.attempt.attempted_at),
            results.map((result) => result.status),
            results.map((result) => result.holdMs),
            results.map((result) => result.attempt.response_body ?? null),
            results.map((result) => result.attempt.response_body_truncated ?? false),
          ],
        ),
      );
      return new Set(rows.map((row) => row.id));
    },

    async release(entries) {
      if (entries.length === 0) return;
      await pool.query(
        prepared(
          `UPDATE deliveries d SET next_attempt_at = v.not_before
             FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, not_before)
            WHERE d.id = v.id AND d.status = 'pending'`,
          [entries.map((entry) => entry.id), entries.map((entry) => entry.notBefore.toISOString())],
        ),
      );
    },

    async extendLeases(ids, leaseMs) {
      if (ids.length === 0) return;
      await pool.query(
        prepared(
          `UPDATE deliveries
              SET next_attempt_at = greatest(next_attempt_at, now() + $2::int * interval '1 millisecond')
            WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
          [ids, leaseMs],
        ),
      );
    },

    async abandon(id) {
      await pool.query(
        prepared(
          `UPDATE deliveries SET status = 'failed', updated_at = now() WHERE id = $1 AND status = 'pending'`,
          [id],
        ),
      );
    },

    async liveWebhooks(ids) {
      const { rows } = await pool.query<{ id: number }>(
        prepared('SELECT id FROM webhooks WHERE id = ANY($1::int[]) AND deleted_at IS NULL AND is_active', [
          ids,
        ]),
      );
      return new Set(rows.map((row) => row.id));
    },
  };
}
