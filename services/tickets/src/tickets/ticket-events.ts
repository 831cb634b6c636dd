/**
 * Which domain events each change of a ticket emits, and the events themselves. Written to the
 * outbox in the same transaction as the change:
 *
 * | change                                        | events                                           |
 * |-----------------------------------------------|--------------------------------------------------|
 * | create                                        | ticket.created                                   |
 * | update, move, bulk (per ticket), merge, restore | ticket.updated, + ticket.status_changed when the status changed, + ticket.assigned when assigned_to changed |
 * | merge                                         | also ticket.merged                               |
 * | restore                                       | also ticket.restored                             |
 * | delete                                        | ticket.deleted                                   |
 *
 * Every event's `data` is the ticket after the change exactly as the API returns it (for delete:
 * the ticket as it was deleted), `project_id` the ticket's project, `source` 'tickets'.
 */
import { newDomainEvent } from '@tix/kit';
import type { DomainEvent, EventType, TicketJson } from '@tix/protos';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import { toTicketJson } from './ticket-mapper.js';
import type { TicketRow, TicketState } from './ticket-row.js';

export const EVENT_SOURCE = 'tickets';

/** What kind of change of an existing, live ticket produced the new state. */
export type ChangeOrigin = 'update' | 'merge' | 'restore';

/** Events of a newly created ticket. */
export function eventTypesOfCreate(): EventType[] {
  return ['ticket.created'];
}

/** Events of a soft deletion. */
export function eventTypesOfDelete(): EventType[] {
  return ['ticket.deleted'];
}

/** Events of a change from `before` to `after` (see the table in the file header). */
export function eventTypesOfChange(
  before: TicketState,
  after: TicketState,
  origin: ChangeOrigin,
): EventType[] {
  const types: EventType[] = ['ticket.updated'];
  if (before.status !== after.status) types.push('ticket.status_changed');
  if (before.assignedTo !== after.assignedTo) types.push('ticket.assigned');
  if (origin === 'merge') types.push('ticket.merged');
  if (origin === 'restore') types.push('ticket.restored');
  return types;
}

/** One DomainEvent per type, all carrying `row` as the API shows it, stamped with its update time. */
export function ticketEvents(
  types: readonly EventType[],
  row: TicketRow,
  project: ProjectWorkflow,
): DomainEvent<TicketJson>[] {
  const data = toTicketJson(row, project);
  return types.map((type) =>
    newDomainEvent(type, data, { source: EVENT_SOURCE, projectId: row.projectId, occurredAt: row.updatedAt }),
  );
}
