/**
 * Merging a ticket into another (POST /tickets/{id}/merge): see merge-rules.ts. Version +1, and
 * ticket.updated (+ status_changed / assigned) + ticket.merged. The write also requires the target
 * to be unchanged since it was checked (both rows locked in id order), so two crossing merges can
 * never both win and make a cycle.
 */
import { actorOf, FieldErrors } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { requireAuthor } from '../shared/caller.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import {
  applyOneChange,
  loadLiveTicket,
  type ProjectTicket,
  type TicketDeps,
} from '../tickets/ticket-steps.js';
import { checkMerge, checkMergeStatus, mergedState } from './merge-rules.js';

export interface MergeTicketInput {
  projectId: number;
  id: number;
  targetId: number;
}

/** Merges ticket `id` into `targetId` and returns the source (with merged_into). */
export async function mergeTicket(
  deps: TicketDeps,
  input: MergeTicketInput,
  caller: LookupCaller,
): Promise<ProjectTicket> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const row = await retryOnWriteConflict(async () => {
    const source = await loadLiveTicket(deps, project.id, input.id);
    const target =
      input.targetId === source.id ? null : await deps.reads.findTicket(project.id, input.targetId);
    const errors = new FieldErrors();
    checkMerge(errors, source, input.targetId, target);
    const closed = checkMergeStatus(errors, project);
    errors.throwIfAny();
    const next = mergedState(source, target!.id, closed!);
    return applyOneChange(
      deps,
      project,
      {
        before: source,
        next,
        placement: next.status === source.status ? { kind: 'keep' } : { kind: 'end' },
        deleted: false,
        updatedBy: author.userId,
      },
      'merge',
      {
        guards: [{ id: target!.id, version: target!.version }],
        onRace: 'retry',
        actor: actorOf(caller.principal),
      },
    );
  });
  return { row, project };
}
