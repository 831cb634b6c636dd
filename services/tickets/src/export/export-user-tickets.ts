/**
 * The data export's tickets (GET /api/me/data-export): every live ticket, of any project, that the
 * user created or is assigned to, in id order. Read by keyset pagination on id, one short query per
 * batch: nothing is held between batches (no connection, no transaction), so a caller that reads
 * slowly, or leaves, costs the service nothing while it waits. The export is therefore not one
 * snapshot: a ticket created or deleted meanwhile may or may not be in it (decisions.md).
 */
import type pg from 'pg';
import { ownDataExport, userKeysetBatches, type AsyncHandlers, type Caller } from '@tix/kit';
import type { ticket } from '@tix/protos';
import type { LookupDirectory } from '../lookup/lookup-directory.js';
import { TICKET_COLUMNS } from '../tickets/ticket-columns.js';
import { apiTicket } from '../tickets/ticket-mapper.js';
import type { TicketRow } from '../tickets/ticket-row.js';

/** Tickets read per query. */
export const EXPORT_BATCH_SIZE = 500;

/**
 * The next batch after `afterId`: each side of the OR walks its own (column, id) index from the
 * last id and stops at the batch size, so every batch costs the same however far the export is.
 */
const NEXT_BATCH = `
  SELECT ${TICKET_COLUMNS} FROM tickets t
   WHERE t.id IN (
     (SELECT id FROM tickets WHERE created_by = $1 AND deleted_at IS NULL AND id > $2 ORDER BY id LIMIT $3)
     UNION ALL
     (SELECT id FROM tickets WHERE assigned_to = $1 AND deleted_at IS NULL AND id > $2 ORDER BY id LIMIT $3))
   ORDER BY t.id
   LIMIT $3`;

/** The user's live tickets (created or assigned), in id order, `batchSize` rows per query. */
export function userTicketBatches(
  pool: pg.Pool,
  userId: number,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<TicketRow[]> {
  return userKeysetBatches<TicketRow>(pool, NEXT_BATCH, userId, batchSize);
}

export interface ExportUserTicketsDeps {
  pool: pg.Pool;
  lookup: LookupDirectory;
  batchSize?: number;
}

/**
 * Every ticket of the export as the API's JSON (each presented in its own project: prefix,
 * status labels). 400/403 before the first read (kit requireOwnDataReader).
 */
export function exportUserTickets(
  deps: ExportUserTicketsDeps,
  userId: number,
  caller: Caller,
): AsyncGenerator<ticket.ApiTicket__Output> {
  return ownDataExport(
    caller.principal,
    userId,
    () => userTicketBatches(deps.pool, userId, deps.batchSize),
    async (row) => apiTicket(row, await deps.lookup.project(row.projectId, caller)),
  );
}

/** The ExportUserTickets RPC (server-streaming; the kit's adapter handles backpressure and cancel). */
export function exportUserTicketsHandler(
  deps: ExportUserTicketsDeps,
): AsyncHandlers<ticket.TicketServiceHandlers>['ExportUserTickets'] {
  return (request, context) => exportUserTickets(deps, request.user_id, context);
}
