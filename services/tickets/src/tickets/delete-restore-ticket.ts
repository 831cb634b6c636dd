/**
 * Soft deletion and restore. A delete marks the ticket deleted (version +1, ticket.deleted with the
 * ticket as it was deleted); from then on it is 404 everywhere. A restore brings a deleted ticket
 * back at the end of its lane (its old position may have been taken meanwhile), version +1, with
 * ticket.updated + ticket.restored; restoring a live ticket is 409 `Ticket is not deleted`.
 */
import { actorOf, AppError } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { requireAuthor } from '../shared/caller.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import { applyOneChange, loadLiveTicket, type ProjectTicket, type TicketDeps } from './ticket-steps.js';
import { checkExpectedVersion, TICKET_NOT_DELETED, ticketNotFound } from './ticket-errors.js';
import { stateOf } from './ticket-row.js';

export const TICKET_DELETED_MESSAGE = 'Ticket deleted';

export interface TicketAddress {
  projectId: number;
  id: number;
}

export interface DeleteTicketInput extends TicketAddress {
  /** If-Match's version: 412 unless the ticket is at it. */
  expectedVersion?: number;
}

/** Soft-deletes the live ticket; 404 when there is none. */
export async function deleteTicket(
  deps: TicketDeps,
  address: DeleteTicketInput,
  caller: LookupCaller,
): Promise<{ message: string }> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(address.projectId, caller);
  await retryOnWriteConflict(async () => {
    const before = await loadLiveTicket(deps, project.id, address.id);
    checkExpectedVersion(address.expectedVersion, before);
    return applyOneChange(
      deps,
      project,
      { before, next: stateOf(before), placement: { kind: 'keep' }, deleted: true, updatedBy: author.userId },
      'delete',
      { onRace: 'retry', actor: actorOf(caller.principal) },
    );
  });
  return { message: TICKET_DELETED_MESSAGE };
}

/** Restores the soft-deleted ticket; 404 when it does not exist, 409 when it is not deleted. */
export async function restoreTicket(
  deps: TicketDeps,
  address: TicketAddress,
  caller: LookupCaller,
): Promise<ProjectTicket> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(address.projectId, caller);
  const row = await retryOnWriteConflict(async () => {
    const before = await deps.reads.findTicket(project.id, address.id, { includeDeleted: true });
    if (!before) throw ticketNotFound();
    if (before.deletedAt === null) throw AppError.conflict(TICKET_NOT_DELETED);
    return applyOneChange(
      deps,
      project,
      { before, next: stateOf(before), placement: { kind: 'end' }, deleted: false, updatedBy: author.userId },
      'restore',
      { onRace: 'retry', actor: actorOf(caller.principal) },
    );
  });
  return { row, project };
}
