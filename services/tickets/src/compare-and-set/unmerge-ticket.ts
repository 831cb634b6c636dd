/**
 * UnmergeTicket (close_duplicate's revert, docs/decisions.md "Exact reverts"): the ticket leaves
 * the ticket it was merged into and gets back the status and resolution_type it had before the
 * merge, at its old place in that lane (position_token, the merge's previous_position_token;
 * without one, the end of the lane unless the status stays). Version +1, updated_by = the
 * principal's user, ticket.updated (+ ticket.status_changed when the status changes), actor from
 * the principal. The merge target is not written.
 *
 * 409 `Ticket was changed after this action` unless the ticket is still as the merge left it:
 * merged into `expected_merged_into_id`, in the project's first closed status (where a merge puts
 * it), resolved as a duplicate; each field that differs is named. `force` writes anyway. Check and
 * write are atomic as in compare-and-set-ticket.ts (the write is conditional on the version read).
 */
import { actorOf, FieldErrors } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { firstClosedStatus } from '../lookup/workflow.js';
import { checkResolutionType } from '../lanes/move-ticket.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import { stateOf } from '../tickets/ticket-row.js';
import { checkStatus } from '../tickets/ticket-rules.js';
import { applyOneChange, loadLiveTicket, type TicketDeps } from '../tickets/ticket-steps.js';
import { changedAfterAction, mismatches, type Expectation } from './cas-fields.js';
import { placementFromToken, requireCasWriter, type CasOutcome } from './compare-and-set-ticket.js';
import { decodePositionToken, encodePositionToken, positionOf } from './position-token.js';

export interface UnmergeTicketInput {
  projectId: number;
  id: number;
  expectedMergedIntoId: number;
  restoreStatus: string;
  restoreResolutionType?: string;
  positionToken?: string;
  force: boolean;
}

/** Unmerges the ticket (see the file header). */
export async function unmergeTicket(
  deps: TicketDeps,
  input: UnmergeTicketInput,
  caller: LookupCaller,
): Promise<CasOutcome> {
  const writer = requireCasWriter(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const errors = new FieldErrors();
  if (!Number.isInteger(input.expectedMergedIntoId) || input.expectedMergedIntoId < 1)
    errors.add('expected_merged_into_id', 'expected_merged_into_id must be a ticket id');
  const status = checkStatus(errors, project, input.restoreStatus, 'restore_status');
  const resolution = checkResolutionType(errors, input.restoreResolutionType, status);
  const position =
    input.positionToken === undefined ? undefined : decodePositionToken(errors, input.positionToken);
  errors.throwIfAny();
  const lane = status!;

  // What the merge left: merged into the target, in the first closed status, a duplicate.
  const merged = firstClosedStatus(project);
  const expected: Expectation = {
    merged_into_id: input.expectedMergedIntoId,
    ...(merged ? { status: merged.slug, resolution_type: 'duplicate' } : {}),
  };

  return retryOnWriteConflict(async () => {
    const before = await loadLiveTicket(deps, project.id, input.id);
    const found = mismatches(expected, before);
    if (Object.keys(found).length > 0 && !input.force) throw changedAfterAction(found);
    const next = {
      ...stateOf(before),
      mergedIntoId: null,
      status: lane.slug,
      resolutionType: lane.isClosed ? (resolution ?? null) : null,
    };
    const placement = await placementFromToken(deps, before, lane.slug, position);
    const previous = await positionOf(deps, before);
    const row = await applyOneChange(
      deps,
      project,
      { before, next, placement, deleted: false, updatedBy: writer.user_id },
      'update',
      { onRace: 'retry', actor: actorOf(writer) },
    );
    return { row, project, previousPositionToken: encodePositionToken(previous) };
  });
}
