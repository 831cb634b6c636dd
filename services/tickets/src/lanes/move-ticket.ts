/**
 * Moving a ticket (PATCH status): to a status of the project and optionally to a place in the
 * target lane — directly after `after_id` and/or directly before `before_id` (tickets of that lane;
 * with both, they must be neighbours). Without a place, a new status puts the ticket at the end of
 * the lane and the same status keeps its place. `resolution_type` is accepted only when the target
 * status is closed; moving to an open status clears it. Every successful move bumps the version and
 * writes ticket.updated (+ ticket.status_changed when the status changed). A move carries no version:
 * when another write changes the ticket meanwhile, the move starts over from the new state (and a
 * move conditional on If-Match's version then fails with 412).
 */
import { actorOf, AppError, FieldErrors } from '@tix/kit';
import { isResolutionType, RESOLUTION_TYPES, type ResolutionType } from '@tix/protos';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import type { WorkflowStatus } from '../lookup/workflow.js';
import { requireAuthor } from '../shared/caller.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import {
  applyOneChange,
  loadLiveTicket,
  type ProjectTicket,
  type TicketDeps,
} from '../tickets/ticket-steps.js';
import { checkExpectedVersion } from '../tickets/ticket-errors.js';
import { stateOf, type TicketRow } from '../tickets/ticket-row.js';
import { checkStatus } from '../tickets/ticket-rules.js';
import {
  adjacencyProblem,
  anchorProblem,
  rankBetween,
  type LaneAnchor,
  type LanePlacement,
} from './lane-placement.js';

export interface MoveTicketInput {
  projectId: number;
  id: number;
  status: string;
  afterId?: number;
  beforeId?: number;
  resolutionType?: string;
  /** If-Match's version: 412 unless the ticket is at it. */
  expectedVersion?: number;
}

export const RESOLUTION_TYPE_NOT_ALLOWED = 'resolution_type is only allowed when moving to a closed status';

/** Checks resolution_type against the target status (closed only, one of the three values). */
export function checkResolutionType(
  errors: FieldErrors,
  value: string | undefined,
  target: WorkflowStatus | undefined,
): ResolutionType | undefined {
  if (value === undefined) return undefined;
  if (!isResolutionType(value)) {
    errors.add('resolution_type', `resolution_type must be one of ${RESOLUTION_TYPES.join(', ')}`);
    return undefined;
  }
  if (target && !target.isClosed) errors.add('resolution_type', RESOLUTION_TYPE_NOT_ALLOWED);
  return value;
}

/** The resolution a ticket keeps after moving to `target`: the given one, else the stored one; none when open. */
export function resolutionAfterMove(
  target: WorkflowStatus,
  given: ResolutionType | undefined,
  current: ResolutionType | null,
): ResolutionType | null {
  return target.isClosed ? (given ?? current) : null;
}

/** The place computed from after_id / before_id in the target lane; 422 naming the bad reference. */
async function placementFromAnchors(
  deps: TicketDeps,
  ticket: TicketRow,
  target: string,
  afterId: number | undefined,
  beforeId: number | undefined,
): Promise<LanePlacement> {
  const ids = [afterId, beforeId].filter((id) => id !== undefined);
  const anchors = new Map<number, LaneAnchor>(
    (await deps.reads.findLaneAnchors(ticket.projectId, ids)).map((anchor) => [anchor.id, anchor]),
  );
  const errors = new FieldErrors();
  for (const [field, id] of [
    ['after_id', afterId],
    ['before_id', beforeId],
  ] as const) {
    if (id === undefined) continue;
    const problem = anchorProblem(id, anchors.get(id), target, ticket.id);
    if (problem) errors.add(field, problem);
  }
  errors.throwIfAny();
  const after = afterId === undefined ? undefined : anchors.get(afterId)!;
  const before = beforeId === undefined ? undefined : anchors.get(beforeId)!;
  const neighbour = (anchor: LaneAnchor, direction: 'next' | 'previous') =>
    deps.reads.laneNeighbour(ticket.projectId, target, anchor.laneRank, direction, ticket.id);
  if (after && before) {
    const problem = adjacencyProblem(after.id, before.id, await neighbour(after, 'next'));
    if (problem) throw AppError.validation({ before_id: [problem] });
    return { kind: 'at', rank: rankBetween(after.laneRank, before.laneRank) };
  }
  if (after) {
    const follower = await neighbour(after, 'next');
    return { kind: 'at', rank: rankBetween(after.laneRank, follower?.laneRank ?? null) };
  }
  const predecessor = await neighbour(before!, 'previous');
  return { kind: 'at', rank: rankBetween(predecessor?.laneRank ?? null, before!.laneRank) };
}

/** Moves the ticket (see the file header). */
export async function moveTicket(
  deps: TicketDeps,
  input: MoveTicketInput,
  caller: LookupCaller,
): Promise<ProjectTicket> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const errors = new FieldErrors();
  const target = checkStatus(errors, project, input.status);
  const resolution = checkResolutionType(errors, input.resolutionType, target);
  errors.throwIfAny();
  const status = target!;

  const row = await retryOnWriteConflict(async () => {
    const before = await loadLiveTicket(deps, project.id, input.id);
    checkExpectedVersion(input.expectedVersion, before);
    const anchored = input.afterId !== undefined || input.beforeId !== undefined;
    let placement: LanePlacement;
    if (anchored)
      placement = await placementFromAnchors(deps, before, status.slug, input.afterId, input.beforeId);
    else placement = status.slug === before.status ? { kind: 'keep' } : { kind: 'end' };
    const next = stateOf(before);
    next.status = status.slug;
    next.resolutionType = resolutionAfterMove(status, resolution, before.resolutionType);
    return applyOneChange(
      deps,
      project,
      { before, next, placement, deleted: false, updatedBy: author.userId },
      'update',
      { onRace: 'retry', actor: actorOf(caller.principal) },
    );
  });
  return { row, project };
}
