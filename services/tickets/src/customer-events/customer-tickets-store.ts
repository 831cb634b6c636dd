/**
 * The tickets that name some customers as requester or in the cc, live and soft-deleted, batch by
 * batch in id order across projects (to re-point them after a customer merge). Served by the
 * indexes of `*_customer_merge_indexes` (requester_id over every row; GIN on non-empty cc).
 */
import type pg from 'pg';
import { prepared } from '../db.js';
import { TICKET_COLUMNS } from '../tickets/ticket-columns.js';
import type { TicketRow } from '../tickets/ticket-row.js';

export interface CustomerTicketsStore {
  /** Up to `limit` tickets (deleted ones too) whose requester or cc is one of `customerIds`, in id order. */
  batch(customerIds: readonly number[], limit: number): Promise<TicketRow[]>;
}

// `cardinality(cc) > 0` repeats the GIN index's predicate, so the planner may use it.
const BATCH = `
  SELECT ${TICKET_COLUMNS} FROM tickets t
   WHERE t.requester_id = ANY($1::int[]) OR (cardinality(t.cc) > 0 AND t.cc && $1::int[])
   ORDER BY t.id LIMIT $2`;

/** The pg-backed store. */
export function createCustomerTicketsStore(pool: pg.Pool): CustomerTicketsStore {
  return {
    async batch(customerIds, limit) {
      return (await pool.query<TicketRow>(prepared(BATCH, [customerIds, limit]))).rows;
    },
  };
}
