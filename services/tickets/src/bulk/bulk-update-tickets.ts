/**
 * Bulk update (POST /tickets/bulk-update): the same status / priority / assignee / tags applied to
 * up to 100 tickets of the project, in one transaction. Each updated ticket gets its own version bump
 * and its own events; a ticket moved to a new status goes to the end of that lane. Tickets that
 * cannot be updated — unknown, deleted, of another project, or a status their project lacks — are
 * reported in failed_ids.
 */
import { actorOf, FieldErrors } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { findStatus, type ProjectWorkflow } from '../lookup/workflow.js';
import { requireAuthor } from '../shared/caller.js';
import { retryOnWriteConflict, WRITE_ATTEMPTS } from '../shared/write-retry.js';
import { changeEvents, type TicketDeps } from '../tickets/ticket-steps.js';
import { checkAssignee } from '../tickets/ticket-references.js';
import { stateOf, type Priority, type TicketRow } from '../tickets/ticket-row.js';
import { checkPriority, normaliseTags } from '../tickets/ticket-rules.js';
import type { TicketChange } from '../tickets/ticket-write-store.js';
import {
  BULK_NOTHING_TO_UPDATE,
  bulkOutcome,
  checkBulkStatus,
  checkTicketIds,
  selectBulkTargets,
} from './bulk-rules.js';

export interface BulkUpdateInput {
  projectId: number;
  ticketIds: readonly number[];
  status?: string;
  priority?: string;
  /** Absent: unchanged; null or 0: unassigned. */
  assignedTo?: number | null;
  /** Absent: unchanged; a list replaces the tags. */
  tags?: readonly string[];
}

export interface BulkUpdateResult {
  project: ProjectWorkflow;
  successCount: number;
  failedIds: number[];
  tickets: TicketRow[];
}

/** Applies the bulk update (see the file header); 422 for a bad request as a whole. */
export async function bulkUpdateTickets(
  deps: TicketDeps,
  input: BulkUpdateInput,
  caller: LookupCaller,
): Promise<BulkUpdateResult> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const errors = new FieldErrors();
  const ids = checkTicketIds(errors, input.ticketIds);
  if (input.status !== undefined) checkBulkStatus(errors, input.status);
  const priority: Priority | undefined =
    input.priority === undefined ? undefined : checkPriority(errors, input.priority);
  const tags = input.tags === undefined ? undefined : normaliseTags(errors, input.tags);
  const assignedTo = input.assignedTo === undefined ? undefined : input.assignedTo || null;
  if ([input.status, input.priority, assignedTo, tags].every((value) => value === undefined))
    errors.add('body', BULK_NOTHING_TO_UPDATE);
  if (assignedTo) await checkAssignee(errors, deps.lookup, assignedTo, caller);
  errors.throwIfAny();

  const target = input.status === undefined ? undefined : findStatus(project, input.status);
  const changeOf = (before: TicketRow): TicketChange => {
    const next = stateOf(before);
    if (target) {
      next.status = target.slug;
      if (!target.isClosed) next.resolutionType = null;
    }
    if (priority) next.priority = priority;
    if (assignedTo !== undefined) next.assignedTo = assignedTo;
    if (tags) next.tags = tags;
    return {
      before,
      next,
      placement: next.status === before.status ? { kind: 'keep' } : { kind: 'end' },
      deleted: false,
      updatedBy: author.userId,
    };
  };

  // Nobody gave a version: a ticket someone else changed during the request is re-read and updated
  // again (a few times at most) rather than reported as failed.
  const updated: TicketRow[] = [];
  let pending = ids;
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS && pending.length > 0; attempt++) {
    const { eligible } = selectBulkTargets(
      pending,
      await deps.reads.findTickets(project.id, pending),
      project,
      input.status,
    );
    const written = await retryOnWriteConflict(() =>
      deps.writes.applyChanges(
        project,
        eligible.map(changeOf),
        changeEvents('update', project, actorOf(caller.principal)),
      ),
    );
    updated.push(...written);
    const done = new Set(written.map((row) => row.id));
    pending = eligible.filter((row) => !done.has(row.id)).map((row) => row.id);
  }
  const outcome = bulkOutcome(ids, updated);
  return { project, ...outcome };
}
