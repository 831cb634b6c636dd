/**
 * The rules of a bulk update: 1 to 100 ticket ids (duplicates collapse), a status among the four
 * default slugs, at least one change; per ticket, an id that is unknown, deleted, of another
 * project, or whose project lacks the status fails alone (failed_ids) while the others are updated.
 */
import type { FieldErrors } from '@tix/kit';
import { BULK_STATUSES, TICKET_LIMITS } from '@tix/protos';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import type { TicketRow } from '../tickets/ticket-row.js';

export const BULK_NOTHING_TO_UPDATE = 'At least one of status, priority, assigned_to or tags is required';

/** The distinct ids in first-seen order; records an error unless there are 1 to 100. */
export function checkTicketIds(errors: FieldErrors, ids: readonly number[]): number[] {
  const distinct = [...new Set(ids)];
  if (distinct.length < 1 || distinct.length > TICKET_LIMITS.bulkIds)
    errors.add('ticket_ids', `ticket_ids must hold 1 to ${TICKET_LIMITS.bulkIds} ticket ids`);
  return distinct;
}

/** Records an error unless `status` is one of the four default slugs. */
export function checkBulkStatus(errors: FieldErrors, status: string): void {
  if (!(BULK_STATUSES as readonly string[]).includes(status))
    errors.add('status', `status must be one of ${BULK_STATUSES.join(', ')}`);
}

export interface BulkSelection {
  /** The tickets to update, in request order. */
  eligible: TicketRow[];
  /** Ids that fail before any write, in request order. */
  failed: number[];
}

/**
 * Splits the requested ids into tickets to update and failures: ids not among `found` (the
 * project's live tickets) fail, and so does every id when the project lacks `status`.
 */
export function selectBulkTargets(
  ids: readonly number[],
  found: readonly TicketRow[],
  project: ProjectWorkflow,
  status: string | undefined,
): BulkSelection {
  const byId = new Map(found.map((row) => [row.id, row]));
  const statusMissing = status !== undefined && !project.statuses.some((s) => s.slug === status);
  const selection: BulkSelection = { eligible: [], failed: [] };
  for (const id of ids) {
    const row = byId.get(id);
    if (row && !statusMissing) selection.eligible.push(row);
    else selection.failed.push(id);
  }
  return selection;
}

/** The bulk response counts: updated tickets in request order, every other id failed. */
export function bulkOutcome(
  ids: readonly number[],
  updated: readonly TicketRow[],
): { successCount: number; failedIds: number[]; tickets: TicketRow[] } {
  const byId = new Map(updated.map((row) => [row.id, row]));
  const tickets = ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
  const failedIds = ids.filter((id) => !byId.has(id));
  return { successCount: tickets.length, failedIds, tickets };
}
