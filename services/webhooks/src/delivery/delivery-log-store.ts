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
}

export interface DeliveryLogStore {
  /** A page of the subscription's deliveries, newest first, and how many there are. */
  page(webhookId: number, offset: number, limit: number): Promise<{ rows: DeliveryRow[]; total: number }>;
  /** The subscription's delivery `id`, or null. */
  find(webhookId: number, id: string): Promise<DeliveryRow | null>;
  /** Queues a new delivery of `eventId` to the subscription (pending, no attempts yet). */
  queueRedelivery(webhookId: number, eventId: string, eventType: string): Promise<DeliveryRow>;
}

const COLUMNS = 'id, webhook_id, event_id, event_type, status, attempts, created_at, updated_at';

/** The store over `pool`. */
export function createDeliveryLogStore(pool: pg.Pool): DeliveryLogStore {
  return {
    async page(webhookId, offset, limit) {
      const [page, count] = await Promise.all([
        pool.query<DeliveryRow>(
          prepared(
            `SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = $1
              ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
            [webhookId, limit, offset],
          ),
        ),
        pool.query<{ total: number }>(
          prepared('SELECT count(*)::int AS total FROM deliveries WHERE webhook_id = $1', [webhookId]),
        ),
      ]);
      return { rows: page.rows, total: count.rows[0]?.total ?? 0 };
    },

    async find(webhookId, id) {
      const { rows } = await pool.query<DeliveryRow>(
        prepared(`SELECT ${COLUMNS} FROM deliveries WHERE id = $2 AND webhook_id = $1`, [webhookId, id]),
      );
      return rows[0] ?? null;
    },

    async queueRedelivery(webhookId, eventId, eventType) {
      const { rows } = await pool.query<DeliveryRow>(
        prepared(
          `INSERT INTO deliveries (webhook_id, event_id, event_type) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
          [webhookId, eventId, eventType],
        ),
      );
      return rows[0]!;
    },
  };
}
