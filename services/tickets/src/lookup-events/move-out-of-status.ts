/**
 * Moving every ticket of a removed status to another status of the project (project.updated's
 * statuses_removed): live and soft-deleted tickets alike, so that no ticket is ever left in a lane
 * that no longer exists (a restored ticket must land somewhere). Each goes to the end of the target
 * lane, its version raised, updated_by the user who removed the status (null for the CLI); the
 * live ones write ticket.updated and ticket.status_changed, as any move does.
 *
 * In batches (one transaction each), so a status with 100,000 tickets never holds one giant
 * transaction or loads them all. Each batch is written conditionally on the versions it read: a
 * ticket changed meanwhile is simply read again by the next batch. Idempotent: a second run finds
 * nothing left in the status.
 */
import { resolutionAfterMove } from '../lanes/move-ticket.js';
import type { ProjectWorkflow, WorkflowStatus } from '../lookup/workflow.js';
import type { EventActor } from '@tix/protos';
import { eventTypesOfChange, ticketChanges, ticketEvents } from '../tickets/ticket-events.js';
import { stateOf } from '../tickets/ticket-row.js';
import type { TicketChange, TicketWriteStore } from '../tickets/ticket-write-store.js';
import type { StatusTicketsStore } from './status-tickets-store.js';

/** Tickets moved per transaction. */
export const MOVE_BATCH_SIZE = 500;

/** Batches in a row that move nothing (every ticket read had changed meanwhile) before giving up. */
const MAX_IDLE_BATCHES = 10;

export interface MoveOutOfStatusInput {
  project: ProjectWorkflow;
  /** The removed status. */
  from: string;
  to: WorkflowStatus;
  /** The user who removed the status, or null. */
  actorId: number | null;
  /** Who removed the status, for the events of the moves (the project.updated event's actor). */
  actor: EventActor;
  batchSize?: number;
}

/** Moves the tickets (see the file header); resolves with how many were moved. */
export async function moveOutOfStatus(
  stores: { tickets: StatusTicketsStore; writes: TicketWriteStore },
  input: MoveOutOfStatusInput,
): Promise<number> {
  const { project, from, to } = input;
  const batchSize = input.batchSize ?? MOVE_BATCH_SIZE;
  let moved = 0;
  let idle = 0;
  for (;;) {
    const rows = await stores.tickets.batch(project.id, from, batchSize);
    if (rows.length === 0) return moved;
    const changes: TicketChange[] = rows.map((before) => ({
      before,
      next: {
        ...stateOf(before),
        status: to.slug,
        resolutionType: resolutionAfterMove(to, undefined, before.resolutionType),
      },
      placement: { kind: 'end' },
      deleted: before.deletedAt !== null,
      updatedBy: input.actorId,
    }));
    const updated = await stores.writes.applyChanges(project, changes, (change, after) =>
      after.deletedAt === null
        ? ticketEvents(eventTypesOfChange(change.before, after, 'update'), after, project, {
            actor: input.actor,
            changes: ticketChanges(change.before, after, project),
          })
        : [],
    );
    moved += updated.length;
    idle = updated.length === 0 ? idle + 1 : 0;
    if (idle >= MAX_IDLE_BATCHES)
      throw new Error(`tickets in status ${from} of project ${project.id} keep changing; retrying later`);
  }
}
