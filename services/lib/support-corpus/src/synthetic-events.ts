/**
 * A synthetic ticket's life as the domain events the ticket and comment services would emit for it
 * (envelope v1.1: actor, changes, write_types, versions), for tests that feed the assistant without
 * those services (startTestAiServer(...).apply(event)):
 *
 * | minute | event                                                                                   |
 * |--------|-----------------------------------------------------------------------------------------|
 * | 0      | ticket.created by the reporter, open, unassigned (version 1)                            |
 * | 5      | comment.created: the customer's public follow-up, if any                                |
 * | 10     | comment.created: the internal note, if written before the reply                         |
 * | 20     | comment.created: the resolver's public reply                                            |
 * | 25     | comment.created: the internal note, if written after the reply                          |
 * | 30     | ticket.updated + status_changed + assigned: closed as resolved by the resolver (version 2) |
 *
 * A ticket left open (`resolved: false`) has only its creation, follow-up and note. Event ids are
 * derived from the ticket id, so the same ticket always yields the same events (a replay is a
 * redelivery, which the consumer ignores).
 */
import type { DomainEvent, EventActor, EventType, FieldChange, TicketJson } from '@tix/protos';
import type { SyntheticTicket } from './synthetic-corpus.js';

/** Comment ids a ticket may use: its follow-up, its note and its reply. */
export const COMMENTS_PER_TICKET = 3;
const MINUTE = 60_000;

export interface SyntheticEventContext {
  projectId: number;
  ticketTypeId: number;
  /** The project's prefix: ticket numbers are <prefix>-<ticketId>. */
  prefix: string;
  /** Unique across the fleet, as the ticket service's ids are. */
  ticketId: number;
  /** Who filed it (its creator, the customer's side). */
  reporterId: number;
  /** The agents behind the corpus's resolver indexes (at least RESOLVER_COUNT of them). */
  resolverIds: readonly number[];
  createdAt: Date;
  /** Default 'open' and 'closed' (the default workflow's first and closed lanes). */
  openStatus?: string;
  closedStatus?: string;
  /** False: the ticket stays open, unanswered. Default true. */
  resolved?: boolean;
  /** Its first comment id; it uses up to COMMENTS_PER_TICKET from there. Default ticketId x COMMENTS_PER_TICKET. */
  firstCommentId?: number;
}

const userActor = (userId: number): EventActor => ({ kind: 'user', user_id: userId, api_key_id: null });

/** A UUID-shaped id, the same for the same ticket and step. */
const eventId = (ticketId: number, step: number) =>
  `00000000-0000-4000-8000-${(ticketId * 8 + step).toString(16).padStart(12, '0')}`;

/** "in_progress" -> "In progress". */
const labelOf = (slug: string) => slug.charAt(0).toUpperCase() + slug.slice(1).replace(/_/g, ' ');

/** The events of `ticket`'s life, oldest first (see the table above). */
export function syntheticTicketEvents(
  ticket: SyntheticTicket,
  context: SyntheticEventContext,
): DomainEvent[] {
  const { projectId, ticketId, reporterId, createdAt } = context;
  const resolverId = context.resolverIds[ticket.resolverIndex];
  if (resolverId === undefined) throw new Error(`no resolver id for resolver index ${ticket.resolverIndex}`);
  const openStatus = context.openStatus ?? 'open';
  const closedStatus = context.closedStatus ?? 'closed';
  const firstCommentId = context.firstCommentId ?? ticketId * COMMENTS_PER_TICKET;
  const at = (minutes: number) => new Date(createdAt.getTime() + minutes * MINUTE).toISOString();

  const created: TicketJson = {
    id: ticketId,
    project_id: projectId,
    ticket_type_id: context.ticketTypeId,
    project_ref_id: ticketId,
    ticket_number: `${context.prefix}-${ticketId}`,
    title: ticket.title,
    description: ticket.description,
    status: openStatus,
    status_label: labelOf(openStatus),
    priority: ticket.priority,
    priority_label: labelOf(ticket.priority),
    assigned_to: null,
    created_by: reporterId,
    updated_by: null,
    custom_fields: {},
    source_type: 'api',
    merged_into_id: null,
    version: 1,
    created_at: at(0),
    updated_at: at(0),
    tags: ticket.tags,
    resolution_type: null,
    requester_id: null,
    cc: [],
    closed_at: null,
  };
  const ticketEvents = (
    types: EventType[],
    data: TicketJson,
    actor: EventActor,
    changes: Record<string, FieldChange>,
    firstStep: number,
  ): DomainEvent[] =>
    types.map((type, offset) => ({
      id: eventId(ticketId, firstStep + offset),
      type,
      occurred_at: data.updated_at,
      source: 'tickets',
      project_id: projectId,
      actor,
      changes,
      ...(type === 'ticket.created' ? { defaulted_fields: [] } : {}),
      write_types: types,
      data: { ...data },
    }));
  const comment = (
    slot: number,
    step: number,
    minutes: number,
    by: number,
    content: string,
    isInternal: boolean,
  ) => ({
    id: eventId(ticketId, step),
    type: 'comment.created' as const,
    occurred_at: at(minutes),
    source: 'comments',
    project_id: projectId,
    actor: userActor(by),
    changes: {},
    data: {
      id: firstCommentId + slot,
      ticket_id: ticketId,
      user_id: by,
      content,
      content_html: null,
      is_internal: isInternal,
      created_at: at(minutes),
      updated_at: at(minutes),
    },
  });

  const resolved = context.resolved ?? true;
  const note = ticket.internalNote;
  const events: DomainEvent[] = ticketEvents(['ticket.created'], created, userActor(reporterId), {}, 0);
  if (ticket.customerComment !== undefined)
    events.push(comment(0, 1, 5, reporterId, ticket.customerComment, false));
  if (note !== undefined && (!note.afterReply || !resolved))
    events.push(comment(1, 2, 10, resolverId, note.content, true));
  if (!resolved) return events;
  events.push(comment(2, 3, 20, resolverId, ticket.reply, false));
  if (note?.afterReply) events.push(comment(1, 2, 25, resolverId, note.content, true));
  const closed: TicketJson = {
    ...created,
    status: closedStatus,
    status_label: labelOf(closedStatus),
    assigned_to: resolverId,
    updated_by: resolverId,
    version: 2,
    updated_at: at(30),
    resolution_type: 'resolved',
    closed_at: at(30),
  };
  events.push(
    ...ticketEvents(
      ['ticket.updated', 'ticket.status_changed', 'ticket.assigned'],
      closed,
      userActor(resolverId),
      {
        status: { from: openStatus, to: closedStatus },
        assigned_to: { from: null, to: resolverId },
        resolution_type: { from: null, to: 'resolved' },
      },
      4,
    ),
  );
  return events;
}
