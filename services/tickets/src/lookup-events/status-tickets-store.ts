/**
 * The tickets of one status of a project, live and soft-deleted: how many there are (lookup asks
 * before it removes a status) and, batch by batch, which (to move them out of a removed status).
 */
import type pg from 'pg';
import { prepared } from '../db.js';
import { TICKET_COLUMNS } from '../tickets/ticket-columns.js';
import type { TicketRow } from '../tickets/ticket-row.js';

export interface StatusTicketsStore {
  /** Live (deleted_at IS NULL) and soft-deleted tickets of the project in the status. */
  count(projectId: number, status: string): Promise<{ live: number; deleted: number }>;
  /** Up to `limit` tickets of the project in the status (deleted ones too), in id order. */
  batch(projectId: number, status: string, limit: number): Promise<TicketRow[]>;
}

const COUNT = `
  SELECT count(*) FILTER (WHERE deleted_at IS NULL)::int AS live,
         count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted
    FROM tickets WHERE project_id = $1 AND status = $2`;

const BATCH = `
  SELECT ${TICKET_COLUMNS} FROM tickets t
   WHERE t.project_id = $1 AND t.status = $2
   ORDER BY t.id LIMIT $3`;

/** The pg-backed store. */
export function createStatusTicketsStore(pool: pg.Pool): StatusTicketsStore {
  return {
    async count(projectId, status) {
      const { rows } = await pool.query<{ live: number; deleted: number }>(
        prepared(COUNT, [projectId, status]),
      );
      return rows[0]!;
    },
    async batch(projectId, status, limit) {
      return (await pool.query<TicketRow>(prepared(BATCH, [projectId, status, limit]))).rows;
    },
  };
}
