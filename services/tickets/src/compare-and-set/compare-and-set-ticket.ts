/**
 * CompareAndSetTicket (docs/decisions.md, "Exact reverts"): the assistant's actions and their exact
 * reverts. The ticket must still hold every value of the expectation (cas-fields.ts); then exactly
 * the fields of the set are written, through the path UpdateTicket, MoveTicket and MergeTicket
 * write through (ticket-steps.ts applyOneChange: version +1, updated_by = the principal's user,
 * ticket.updated + status_changed / assigned / merged, actor and changes from the principal).
 * Fields outside the set are never written, so a person's later edit of another field survives a
 * revert.
 *
 * - A mismatch is 409 `Ticket was changed after this action` naming each field, and nothing is
 *   written; with `force` the write happens anyway (an admin's forced revert).
 * - Check and write are atomic: the expectation is compared with the row at version v and the
 *   write is conditional on version v (the one UPDATE of the store). When another write got in
 *   between, the whole call starts over from the new row (shared/write-retry.ts), so it compares
 *   again: a change it did not see can never be overwritten.
 * - status: as MoveTicket, the end of the new lane, or the place `position_token` names
 *   (position-token.ts; it must be a token of that lane); resolution_type is kept when the lane is
 *   closed and cleared when it is open. A resolution may be set only in a closed lane (422 as
 *   MoveTicket); null may be set anywhere, so a revert can restore a closed ticket that had none.
 * - tags: replaced (`tags`), or `tags_add` appended where absent and `tags_remove` removed where
 *   present, so a revert removes exactly what an action added; at most 20 after the change.
 * - merged_into_id: a merge under MergeTicket's rules (merge-rules.ts; the target must stay
 *   unchanged until the write commits).
 * - The result's previous_position_token says where the ticket stood before the write.
 * - The principal must be an agent or above (the role UpdateTicket's callers need); another
 *   project's ticket is 404 as everywhere.
 */
import { actorOf, AppError, FieldErrors, requirePrincipal } from '@tix/kit';
import { roleAtLeast, TICKET_LIMITS, type Principal } from '@tix/protos';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { findStatus, type ProjectWorkflow } from '../lookup/workflow.js';
import { RESOLUTION_TYPE_NOT_ALLOWED, resolutionAfterMove } from '../lanes/move-ticket.js';
import type { LanePlacement } from '../lanes/lane-placement.js';
import { checkMerge, checkMergeStatus, mergedState } from '../merges/merge-rules.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import { checkAssignee } from '../tickets/ticket-references.js';
import { stateOf, type TicketRow, type TicketState } from '../tickets/ticket-row.js';
import { applyOneChange, loadLiveTicket, type TicketDeps } from '../tickets/ticket-steps.js';
import { changedAfterAction, mismatches, parseExpectation, parseSet, type CasSet } from './cas-fields.js';
import {
  decodePositionToken,
  encodePositionToken,
  placementAt,
  positionOf,
  type LanePosition,
} from './position-token.js';

export const AGENT_ROLE_REQUIRED = 'This operation requires the agent role or above';

/** The writer of a compare-and-set or unmerge: 401 without a principal, 403 below agent. */
export function requireCasWriter(principal: Principal | null): Principal {
  const writer = requirePrincipal(principal);
  if (!roleAtLeast(writer.role, 'agent')) throw AppError.permissionDenied(AGENT_ROLE_REQUIRED);
  return writer;
}

export interface CompareAndSetInput {
  projectId: number;
  id: number;
  expectedJson: string;
  setJson: string;
  positionToken?: string;
  force: boolean;
}

/** A compare-and-set's (or unmerge's) outcome: the ticket after the write and where it stood before. */
export interface CasOutcome {
  row: TicketRow;
  project: ProjectWorkflow;
  previousPositionToken: string;
}

/** The token of a position, checked against the lane the ticket ends up in (422 when it is another). */
export async function placementFromToken(
  deps: TicketDeps,
  before: TicketRow,
  lane: string,
  position: LanePosition | undefined,
): Promise<LanePlacement> {
  if (!position) return lane === before.status ? { kind: 'keep' } : { kind: 'end' };
  if (position.status !== lane)
    throw AppError.validation({
      position_token: [`The position token is for the ${position.status} lane, not ${lane}`],
    });
  return placementAt(deps, before.projectId, before.id, position);
}

/** MergeTicket's rules name the source `id` and the target `target_id`; here both are merged_into_id. */
class MergeErrors extends FieldErrors {
  constructor(private readonly into: FieldErrors) {
    super();
  }

  override add(_field: string, message: string): void {
    this.into.add('merged_into_id', message);
  }
}

/** The state after `set`, its placement and the tickets the write relies on (merge target). */
async function plan(
  deps: TicketDeps,
  project: ProjectWorkflow,
  before: TicketRow,
  set: CasSet,
  position: LanePosition | undefined,
  caller: LookupCaller,
) {
  const errors = new FieldErrors();
  let next: TicketState = stateOf(before);
  let guards: { id: number; version: number }[] = [];
  if (set.priority) next.priority = set.priority;
  if (set.assignedTo !== undefined) {
    // As UpdateTicket: re-sending the current assignee is no change, even if deactivated since.
    if (set.assignedTo !== null && set.assignedTo !== before.assignedTo)
      await checkAssignee(errors, deps.lookup, set.assignedTo, caller);
    next.assignedTo = set.assignedTo;
  }
  if (set.tags || set.tagsAdd || set.tagsRemove) {
    let tags = set.tags ?? [...before.tags];
    for (const tag of set.tagsAdd ?? []) if (!tags.includes(tag)) tags.push(tag);
    if (set.tagsRemove) tags = tags.filter((tag) => !set.tagsRemove!.includes(tag));
    if (tags.length > TICKET_LIMITS.tags && !errors.has('tags'))
      errors.add('tags', `Tags must have at most ${TICKET_LIMITS.tags} items`);
    next.tags = tags;
  }
  const lane = set.status ?? findStatus(project, before.status);
  if (set.status) {
    next.status = set.status.slug;
    next.resolutionType = resolutionAfterMove(set.status, undefined, before.resolutionType);
  }
  if (set.resolutionType !== undefined) {
    // Only a closed lane has a resolution (MoveTicket's rule); null clears it anywhere.
    if (set.resolutionType !== null && lane && !lane.isClosed)
      errors.add('resolution_type', RESOLUTION_TYPE_NOT_ALLOWED);
    next.resolutionType = set.resolutionType;
  }
  let origin: 'update' | 'merge' = 'update';
  if (set.mergedIntoId !== undefined) {
    const targetId = set.mergedIntoId;
    const target = targetId === before.id ? null : await deps.reads.findTicket(project.id, targetId);
    checkMerge(new MergeErrors(errors), before, targetId, target);
    const closed = checkMergeStatus(errors, project);
    if (target && closed) {
      next = { ...next, ...pick(mergedState(before, target.id, closed)) };
      guards = [{ id: target.id, version: target.version }];
      origin = 'merge';
    }
  }
  errors.throwIfAny();
  const placement = await placementFromToken(deps, before, next.status, position);
  return { next, placement, guards, origin };
}

/** What a merge decides of the source's state. */
function pick(state: TicketState): Pick<TicketState, 'mergedIntoId' | 'status' | 'resolutionType'> {
  return { mergedIntoId: state.mergedIntoId, status: state.status, resolutionType: state.resolutionType };
}

/** Compares and sets (see the file header). */
export async function compareAndSetTicket(
  deps: TicketDeps,
  input: CompareAndSetInput,
  caller: LookupCaller,
): Promise<CasOutcome> {
  const writer = requireCasWriter(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const errors = new FieldErrors();
  const expected = parseExpectation(errors, input.expectedJson);
  const set = parseSet(errors, input.setJson, project);
  const position =
    input.positionToken === undefined ? undefined : decodePositionToken(errors, input.positionToken);
  errors.throwIfAny();

  return retryOnWriteConflict(async () => {
    const before = await loadLiveTicket(deps, project.id, input.id);
    const found = mismatches(expected, before);
    if (Object.keys(found).length > 0 && !input.force) throw changedAfterAction(found);
    const { next, placement, guards, origin } = await plan(deps, project, before, set, position, caller);
    const previous = await positionOf(deps, before);
    const row = await applyOneChange(
      deps,
      project,
      { before, next, placement, deleted: false, updatedBy: writer.user_id },
      origin,
      { guards, onRace: 'retry', actor: actorOf(writer) },
    );
    return { row, project, previousPositionToken: encodePositionToken(previous) };
  });
}
