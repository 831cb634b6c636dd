/**
 * The fan-out of one event, as one SQL statement (so one transaction and one round trip): record
 * the event id in processed_events (a second copy of the same event finds it there and does
 * nothing) and queue one pending delivery per live subscription of the event's project that
 * subscribed to its type. The body is stored once per event, only when some subscription matched.
 * The deliveries table's trigger then wakes every replica's workers.
 */
import type pg from 'pg';
import { prepared } from '../db.js';

export interface FanOutResult {
  /** The event id was already recorded: nothing was queued. */
  duplicate: boolean;
  /** Deliveries queued. */
  queued: number;
}

export interface FanOutInput {
  eventId: string;
  eventType: string;
  /** Absent for events without a project (they match nothing). */
  projectId: number | undefined;
  /** The delivery body (signing.ts deliveryBody). */
  body: string;
}

export interface FanOutStore {
  fanOut(input: FanOutInput): Promise<FanOutResult>;
}

/** The store over `pool`. */
export function createFanOutStore(pool: pg.Pool): FanOutStore {
  return {
    async fanOut({ eventId, eventType, projectId, body }) {
      const { rows } = await pool.query<{ fresh: number; queued: number }>(
        prepared(
          `WITH matched AS (
             SELECT id FROM webhooks
              WHERE project_id = $3 AND deleted_at IS NULL AND is_active AND $2 = ANY(events)
           ), fresh AS (
             INSERT INTO processed_events (event_id, event_type, body)
             VALUES ($1, $2, CASE WHEN EXISTS (SELECT 1 FROM matched) THEN $4 END)
             ON CONFLICT (event_id) DO NOTHING
             RETURNING event_id
           ), queued AS (
             INSERT INTO deliveries (webhook_id, event_id, event_type)
             SELECT m.id, f.event_id, $2 FROM fresh f CROSS JOIN matched m
             RETURNING id
           )
           SELECT (SELECT count(*) FROM fresh)::int AS fresh, (SELECT count(*) FROM queued)::int AS queued`,
          [eventId, eventType, projectId ?? null, body],
        ),
      );
      const row = rows[0]!;
      return { duplicate: row.fresh === 0, queued: row.queued };
    },
  };
}
