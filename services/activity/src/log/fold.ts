/**
 * What one domain event adds to the logs (pure; log-store.ts writes it):
 * - a row of the event stream, the webhook delivery body, by event id (redeliveries of the same
 *   event find it there and add nothing). Only ticket, comment and attachment events: the stream
 *   serves integrators what webhooks deliver, and ai.* events are not subscribable;
 * - an activity entry, unless another event of the same write already made it. A ticket write emits
 *   several events (a PUT changing status and assignee: updated, status_changed, assigned), all with
 *   the same `changes`, `write_types` and ticket version, so they fold into one entry keyed
 *   `ticket:<id>:<version>`, whose type is the write's most specific one (FOLDED_TYPE_RANK). Every
 *   other event is an entry of its own, keyed `event:<id>`, except the ai.* events that would tell a
 *   ticket write twice (assistant-entries.ts);
 * - for ticket events, the ticket's number and title, which comment and attachment summaries name.
 */
import { deliveryBody, type DomainEvent, type EventActor } from '@tix/protos';
import { assistantEntry } from './assistant-entries.js';
import type { EntryDraft } from './entry-draft.js';
import { positiveInt, text } from './event-values.js';

/** A comment's excerpt in the feed: at most this many characters. */
export const EXCERPT_LENGTH = 200;

export interface StreamRow {
  eventId: string;
  type: string;
  projectId: number | null;
  occurredAt: string;
  body: string;
}

export interface SubjectUpdate {
  id: number;
  projectId: number;
  ticketNumber: string;
  title: string;
  version: number;
}

/**
 * Ticket, comment and attachment events: a stream row and an entry (perhaps folded into its write's).
 * ai.* events: no stream row, and an entry or none.
 */
export type LogRecord = StreamedRecord | { stream: null; entry: EntryDraft | null; subject: null };

export interface StreamedRecord {
  stream: StreamRow;
  entry: EntryDraft;
  subject: SubjectUpdate | null;
}

/** Who made a change when the event predates envelope v1.1. */
const UNKNOWN_ACTOR: EventActor = { kind: 'system', user_id: null, api_key_id: null };

/**
 * The entry type of a ticket write, from the types it emitted: the first of these that the write
 * emitted, else ticket.updated (updated, status_changed and assigned are all "updated").
 */
const FOLDED_TYPE_RANK = ['ticket.created', 'ticket.deleted', 'ticket.merged', 'ticket.restored'] as const;

export function foldedTicketType(writeTypes: readonly string[]): string {
  return FOLDED_TYPE_RANK.find((type) => writeTypes.includes(type)) ?? 'ticket.updated';
}

/** The first EXCERPT_LENGTH characters of a comment's text, whitespace collapsed, "…" when cut. */
export function excerptOf(content: string): string {
  const characters = Array.from(content.replace(/\s+/g, ' ').trim());
  if (characters.length <= EXCERPT_LENGTH) return characters.join('');
  return `${characters
    .slice(0, EXCERPT_LENGTH - 1)
    .join('')
    .trimEnd()}…`;
}

/** The logs' share of `event` (see the file header). */
export function foldEvent(event: DomainEvent): LogRecord {
  if (event.type.startsWith('ai.'))
    return { stream: null, entry: assistantEntry(event, event.actor ?? UNKNOWN_ACTOR), subject: null };
  return foldWriteEvent(event);
}

/** The share of a ticket, comment or attachment event: a stream row and an entry, always. */
export function foldWriteEvent(event: DomainEvent): StreamedRecord {
  const { data } = event;
  const projectId = event.project_id ?? null;
  const isTicketEvent = event.type.startsWith('ticket.');
  const ticketId = positiveInt(isTicketEvent ? data.id : data.ticket_id);
  const version = positiveInt(data.version);
  const foldKey =
    isTicketEvent && ticketId !== null && version !== null
      ? `ticket:${ticketId}:${version}`
      : `event:${event.id}`;

  const commentId = event.type.startsWith('comment.') ? positiveInt(data.id) : null;
  const entry: EntryDraft = {
    foldKey,
    eventId: event.id,
    type: isTicketEvent ? foldedTicketType(event.write_types ?? [event.type]) : event.type,
    occurredAt: event.occurred_at,
    projectId,
    actor: event.actor ?? UNKNOWN_ACTOR,
    ticketId,
    changes: event.changes ?? {},
    comment:
      commentId === null
        ? null
        : {
            id: commentId,
            isInternal: data.is_internal !== false,
            excerpt: excerptOf(text(data.content) ?? ''),
          },
    filename: event.type.startsWith('attachment.') ? text(data.original_filename) : null,
    details: null,
  };

  const ticketNumber = text(data.ticket_number);
  const title = text(data.title);
  const subject =
    isTicketEvent &&
    ticketId !== null &&
    version !== null &&
    projectId !== null &&
    ticketNumber !== null &&
    title !== null
      ? { id: ticketId, projectId, ticketNumber, title, version }
      : null;

  return {
    stream: {
      eventId: event.id,
      type: event.type,
      projectId,
      occurredAt: event.occurred_at,
      body: deliveryBody(event),
    },
    entry,
    subject,
  };
}
