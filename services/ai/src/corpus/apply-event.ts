/**
 * What a domain event means for the corpus: ticket events carry the ticket as the API shows it,
 * comment events the comment. Anything the corpus cannot read is an UnreadableEvent (dead-lettered,
 * never retried). A ticket new to the corpus waits for its shadow predictions in the table
 * (predictions/worker.ts), so the event is acknowledged as soon as the row is written.
 */
import { AppError, isTransientDatabaseError } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import type { ClosedStatuses } from './closed-statuses.js';
import type { CorpusStore } from './corpus-store.js';

export class UnreadableEvent extends Error {
  override readonly name = 'UnreadableEvent';
}

/**
 * Whether a failure to apply an event may pass (the database or lookup unreachable): the consumer
 * retries those in place. An unreadable event, or one whose project lookup does not know, never
 * will: it goes to the dead-letter queue instead of holding a prefetch slot forever.
 */
export function isTransientCorpusError(error: unknown): boolean {
  if (error instanceof UnreadableEvent) return false;
  if (error instanceof AppError) return ['unavailable', 'timeout', 'internal'].includes(error.kind);
  return isTransientDatabaseError(error);
}

const int = (value: unknown, field: string): number => {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new UnreadableEvent(`${field} is not an integer`);
};
const optionalInt = (value: unknown, field: string): number | null =>
  value === null || value === undefined ? null : int(value, field);
const text = (value: unknown, field: string): string => {
  if (typeof value === 'string') return value;
  throw new UnreadableEvent(`${field} is not a string`);
};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

export interface ApplyDeps {
  corpus: CorpusStore;
  closedStatuses: ClosedStatuses;
}

export async function applyEvent(deps: ApplyDeps, event: DomainEvent): Promise<void> {
  const { data } = event;
  if (event.type.startsWith('ticket.')) {
    const projectId = int(data.project_id, 'project_id');
    const status = text(data.status, 'status');
    const closed = await deps.closedStatuses.of(projectId);
    const writeTypes = event.write_types ?? [event.type];
    await deps.corpus.applyTicket({
      ticketId: int(data.id, 'id'),
      projectId,
      ticketTypeId: int(data.ticket_type_id, 'ticket_type_id'),
      ticketNumber: text(data.ticket_number, 'ticket_number'),
      title: text(data.title, 'title'),
      description: typeof data.description === 'string' ? data.description : '',
      status,
      isClosed: closed.has(status),
      priority: text(data.priority, 'priority'),
      resolutionType: typeof data.resolution_type === 'string' ? data.resolution_type : null,
      tags: strings(data.tags),
      assignedTo: optionalInt(data.assigned_to, 'assigned_to'),
      createdBy: int(data.created_by, 'created_by'),
      createdAt: text(data.created_at, 'created_at'),
      updatedAt: text(data.updated_at, 'updated_at'),
      mergedIntoId: optionalInt(data.merged_into_id, 'merged_into_id'),
      deleted: writeTypes.includes('ticket.deleted'),
      version: int(data.version, 'version'),
      ...(event.type === 'ticket.created'
        ? { priorityDefaulted: (event.defaulted_fields ?? []).includes('priority') }
        : {}),
      changed: {
        fields: Object.keys(event.changes ?? {}),
        userId: event.actor?.user_id ?? null,
        at: event.occurred_at,
      },
    });
  } else if (event.type.startsWith('comment.')) {
    await deps.corpus.applyComment({
      id: int(data.id, 'id'),
      ticketId: int(data.ticket_id, 'ticket_id'),
      projectId: int(event.project_id, 'project_id'),
      userId: int(data.user_id, 'user_id'),
      isInternal: data.is_internal !== false,
      content: text(data.content, 'content'),
      createdAt: text(data.created_at, 'created_at'),
      updatedAt: text(data.updated_at ?? data.created_at, 'updated_at'),
      deleted: event.type === 'comment.deleted',
    });
  }
}
