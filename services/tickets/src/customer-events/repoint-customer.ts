/**
 * Re-pointing the tickets of merged customers at the customer they were merged into
 * (customer.merged): a merged id as requester becomes the target; in the cc it becomes the target
 * too, each customer kept once in its first place, and the requester never in the cc (so when the
 * target already asks or is copied, the merged customer just disappears). Live and soft-deleted
 * tickets alike, so a restored ticket names the live customer; each gets its version raised,
 * updated_by the user who merged, and the live ones one ticket.updated each with the merge's actor
 * and `changes` (requester_id, cc), in the transaction of the change.
 *
 * In batches (one transaction per project of a batch), so a customer with thousands of tickets
 * never holds one giant transaction. Each batch is written conditionally on the versions it read: a
 * ticket changed meanwhile is read again by the next batch. Idempotent: a second run finds no
 * ticket naming a merged id. docs/decisions.md, "A merged customer's tickets follow the merge
 * (issue 28)".
 */
import { AppError } from '@tix/kit';
import type { EventActor } from '@tix/protos';
import type { LookupCaller, LookupDirectory } from '../lookup/lookup-directory.js';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import { eventTypesOfChange, ticketChanges, ticketEvents } from '../tickets/ticket-events.js';
import { stateOf, type TicketRow, type TicketState } from '../tickets/ticket-row.js';
import type { TicketChange, TicketWriteStore } from '../tickets/ticket-write-store.js';
import type { CustomerTicketsStore } from './customer-tickets-store.js';

/** Tickets read (and re-pointed) per batch. */
export const REPOINT_BATCH_SIZE = 500;

/** Batches in a row that change nothing (every ticket read had changed meanwhile) before giving up. */
const MAX_IDLE_BATCHES = 10;

export interface RepointInput {
  /** The customers merged away (the source and older tombstones of it). */
  mergedIds: readonly number[];
  /** The customer they were merged into. */
  targetId: number;
  /** Who merged (the event's actor), for the events; its user is the tickets' updated_by. */
  actor: EventActor;
  /** The lookup calls' correlation id (the event id). */
  correlationId: string;
  batchSize?: number;
}

/** The requester and cc of `state` with every merged id replaced by the target (see the file header). */
export function repointedState(
  state: TicketState,
  merged: ReadonlySet<number>,
  targetId: number,
): TicketState {
  const follow = (id: number) => (merged.has(id) ? targetId : id);
  const requesterId = state.requesterId === null ? null : follow(state.requesterId);
  const cc: number[] = [];
  for (const id of state.cc.map(follow)) if (id !== requesterId && !cc.includes(id)) cc.push(id);
  return { ...state, requesterId, cc };
}

/** Re-points the tickets (see the file header); resolves with how many were changed. */
export async function repointCustomerTickets(
  deps: { tickets: CustomerTicketsStore; writes: TicketWriteStore; lookup: LookupDirectory },
  input: RepointInput,
): Promise<number> {
  const merged = new Set(input.mergedIds);
  const batchSize = input.batchSize ?? REPOINT_BATCH_SIZE;
  const caller: LookupCaller = { correlationId: input.correlationId, principal: null };
  const projects = new Map<number, ProjectWorkflow | null>();
  const projectOf = async (projectId: number): Promise<ProjectWorkflow | null> => {
    if (!projects.has(projectId)) {
      try {
        projects.set(projectId, await deps.lookup.project(projectId, caller));
      } catch (error) {
        // A project lookup no longer has: its tickets are re-pointed all the same, without events
        // (there is no one to show them to, and no workflow to present them with).
        if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
        projects.set(projectId, null);
      }
    }
    return projects.get(projectId)!;
  };
  let changed = 0;
  let idle = 0;
  for (;;) {
    const rows = await deps.tickets.batch(input.mergedIds, batchSize);
    if (rows.length === 0) return changed;
    const byProject = new Map<number, TicketRow[]>();
    for (const row of rows) byProject.set(row.projectId, [...(byProject.get(row.projectId) ?? []), row]);
    let written = 0;
    for (const [projectId, tickets] of byProject) {
      const project = await projectOf(projectId);
      const changes: TicketChange[] = tickets.map((before) => ({
        before,
        next: repointedState(stateOf(before), merged, input.targetId),
        placement: { kind: 'keep' },
        deleted: before.deletedAt !== null,
        updatedBy: input.actor.user_id,
      }));
      // A project lookup no longer knows has no workflow: no status counts as closed there.
      const workflow = project ?? { id: projectId, statuses: [] };
      const updated = await deps.writes.applyChanges(workflow, changes, (change, after) =>
        project === null || after.deletedAt !== null
          ? []
          : ticketEvents(eventTypesOfChange(change.before, after, 'update'), after, project, {
              actor: input.actor,
              changes: ticketChanges(change.before, after, project),
            }),
      );
      written += updated.length;
    }
    changed += written;
    idle = written === 0 ? idle + 1 : 0;
    if (idle >= MAX_IDLE_BATCHES)
      throw new Error(`tickets of customers ${[...merged].join(', ')} keep changing; retrying later`);
  }
}
