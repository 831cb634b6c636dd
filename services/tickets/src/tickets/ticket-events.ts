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
 *
 * Envelope v1.1 (docs/events.md): every event carries the call's `actor` and `changes`, the public
 * fields (CHANGE_FIELDS) that differ between the ticket before and after; all events of one write
 * carry the same `changes` and the list of them all (`write_types`), so a consumer can fold them by
 * ticket and version. A creation and a
 * deletion change no field (`{}`); ticket.created also carries `defaulted_fields`.
 */
import { fieldChanges, newEventEnvelope, type EventEnvelope } from '@tix/kit';
import type { DomainEvent, EventActor, EventType, FieldChange, TicketJson } from '@tix/protos';
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

/**
 * The public fields a change may alter, as `changes` names them (labels follow their field, and
 * bookkeeping such as version and updated_at is left out).
 */
export const CHANGE_FIELDS = [
  'title',
  'description',
  'status',
  'priority',
  'assigned_to',
  'custom_fields',
  'tags',
  'resolution_type',
  'merged_into_id',
  'ticket_type_id',
  'requester_id',
  'cc',
] as const satisfies readonly (keyof TicketJson)[];

/** `changes` of a write: the CHANGE_FIELDS that differ between the ticket before and after it. */
export function ticketChanges(
  before: TicketRow,
  after: TicketRow,
  project: ProjectWorkflow,
): Record<string, FieldChange> {
  return fieldChanges(toTicketJson(before, project), toTicketJson(after, project), CHANGE_FIELDS);
}

/** What every event of one write carries beside its data (envelope v1.1). */
export interface TicketEventEnvelope {
  actor: EventActor;
  changes: Record<string, FieldChange>;
  /** ticket.created only. */
  defaultedFields?: readonly string[];
}

/**
 * The envelopes of ticketEvents' events, for a ticket about to be numbered: the create statement
 * writes their data from the numbered row (ticket-write-store.ts).
 */
export function ticketEventEnvelopes(
  types: readonly EventType[],
  row: Pick<TicketRow, 'projectId' | 'updatedAt'>,
  envelope: TicketEventEnvelope,
): EventEnvelope[] {
  return types.map((type) =>
    newEventEnvelope(type, {
      source: EVENT_SOURCE,
      projectId: row.projectId,
      occurredAt: row.updatedAt,
      writeTypes: types,
      ...envelope,
    }),
  );
}

/** One DomainEvent per type, all carrying `row` as the API shows it, stamped with its update time. */
export function ticketEvents(
  types: readonly EventType[],
  row: TicketRow,
  project: ProjectWorkflow,
  envelope: TicketEventEnvelope,
): DomainEvent<TicketJson>[] {
  const data = toTicketJson(row, project);
  return ticketEventEnvelopes(types, row, envelope).map((event) => ({ ...event, data }));
}
