/**
 * The rules of merging a ticket (the source) into another (the target): the target is a live
 * ticket of the same project, not the source itself, not merged into anything; the source is not
 * merged already. The merged source is closed in the project's first closed status as a duplicate.
 */
import type { FieldErrors } from '@tix/kit';
import { firstClosedStatus, type ProjectWorkflow, type WorkflowStatus } from '../lookup/workflow.js';
import { stateOf, type TicketRow, type TicketState } from '../tickets/ticket-row.js';

/** Records why `source` cannot be merged into `target` (null: no live ticket `targetId` in the project). */
export function checkMerge(
  errors: FieldErrors,
  source: TicketRow,
  targetId: number,
  target: TicketRow | null,
): void {
  if (source.mergedIntoId !== null)
    errors.add('id', `Ticket ${source.id} is already merged into ticket ${source.mergedIntoId}`);
  if (targetId === source.id) errors.add('target_id', 'A ticket cannot be merged into itself');
  else if (!target) errors.add('target_id', `Ticket ${targetId} not found in this project`);
  else if (target.mergedIntoId !== null)
    errors.add('target_id', `Ticket ${targetId} is already merged into ticket ${target.mergedIntoId}`);
}

/** Where merged tickets go; records an error when the workflow has no closed status. */
export function checkMergeStatus(errors: FieldErrors, project: ProjectWorkflow): WorkflowStatus | undefined {
  const closed = firstClosedStatus(project);
  if (!closed) errors.add('status', 'The project has no closed status to put a merged ticket in');
  return closed;
}

/** The source's state after the merge: merged into the target, closed, resolved as a duplicate. */
export function mergedState(source: TicketRow, targetId: number, closed: WorkflowStatus): TicketState {
  return { ...stateOf(source), mergedIntoId: targetId, status: closed.slug, resolutionType: 'duplicate' };
}
