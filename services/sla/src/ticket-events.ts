/**
 * What a ticket or comment event means for a ticket's SLA (docs/sla.md, "The service"), pure: the
 * ticket as of its event (a snapshot: every ticket event carries the whole ticket and its version)
 * and the history facts the clock engine takes.
 */
import type { SlaEvent, TicketFacts } from '@tix/business-time';
import type { DomainEvent } from '@tix/protos';

/** The ticket as of the last ticket event applied. */
export interface TicketSnapshot {
  status: string;
  closed: boolean;
  deleted: boolean;
  facts: TicketFacts;
}

/** A history entry as stored: the engine's event (instants as ISO text) and where it came from. */
export type StoredEvent = { ref: string; at: string } & Record<string, unknown>;

/** The ticket fields of an event's data that the SLA reads. */
interface TicketData {
  id: number;
  version: number;
  status: string;
  priority: string;
  ticket_type_id: number | null;
  requester_id: number | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  created_at: string;
}

interface CommentData {
  id: number;
  ticket_id: number;
  is_internal: boolean;
  author_type?: string;
  created_at: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isInstant = (value: unknown): value is string =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** The ticket of a ticket event, or null when its data is not a ticket (such an event is skipped). */
export function ticketOf(event: DomainEvent): TicketData | null {
  const data = event.data;
  if (!isObject(data)) return null;
  const ok =
    Number.isInteger(data.id) &&
    Number.isInteger(data.version) &&
    typeof data.status === 'string' &&
    typeof data.priority === 'string' &&
    isInstant(data.created_at);
  return ok ? (data as unknown as TicketData) : null;
}

/** The comment of a comment event, or null. */
export function commentOf(event: DomainEvent): CommentData | null {
  const data = event.data;
  if (!isObject(data)) return null;
  const ok =
    Number.isInteger(data.id) &&
    Number.isInteger(data.ticket_id) &&
    typeof data.is_internal === 'boolean' &&
    isInstant(data.created_at);
  return ok ? (data as unknown as CommentData) : null;
}

/** What a policy filter looks at (organizations are not on tickets yet: null). */
export function factsOf(ticket: TicketData): TicketFacts {
  return {
    priority: ticket.priority,
    ticket_type: ticket.ticket_type_id === null ? null : String(ticket.ticket_type_id),
    organization: null,
    requester:
      ticket.requester_id === null || ticket.requester_id === undefined ? null : String(ticket.requester_id),
    tags: Array.isArray(ticket.tags) ? [...ticket.tags].sort() : [],
    custom_fields: isObject(ticket.custom_fields) ? ticket.custom_fields : {},
  };
}

/**
 * A comment's history fact: a public staff comment is a staff reply, a customer's (author_type
 * `customer`) a customer message; an internal note is nothing.
 */
export function commentFact(comment: CommentData): StoredEvent | null {
  if (comment.is_internal) return null;
  const type = comment.author_type === 'customer' ? 'customer_message' : 'staff_public_reply';
  return { ref: `comment:${comment.id}`, type, at: new Date(comment.created_at).toISOString() };
}

/** The facts that differ between two snapshots (for facts_changed), or null when none does. */
export function changedFacts(before: TicketFacts, after: TicketFacts): Partial<TicketFacts> | null {
  const changed: Partial<TicketFacts> = {};
  for (const key of Object.keys(after) as (keyof TicketFacts)[])
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      (changed as Record<string, unknown>)[key] = after[key];
  return Object.keys(changed).length > 0 ? changed : null;
}

/** Inserts `entry` after every entry at or before its instant (events at one instant keep their order). */
export function insertInOrder(history: StoredEvent[], entry: StoredEvent): StoredEvent[] {
  const at = Date.parse(entry.at);
  let index = history.length;
  while (index > 0 && Date.parse(history[index - 1]!.at) > at) index -= 1;
  return [...history.slice(0, index), entry, ...history.slice(index)];
}

/**
 * The engine's history from the stored one: `created` first, anything stamped before it (a
 * comment's clock a little behind the ticket service's) moved to the creation instant. Null when
 * the ticket's creation has not been seen.
 */
export function engineHistory(history: readonly StoredEvent[]): SlaEvent[] | null {
  const created = history.find((entry) => entry.type === 'created');
  if (!created) return null;
  const start = Date.parse(created.at);
  const rest = history.filter((entry) => entry !== created);
  const toEvent = (entry: StoredEvent): SlaEvent => {
    const { ref: _ref, at, ...fields } = entry;
    return { ...fields, at: new Date(Math.max(start, Date.parse(at))) } as unknown as SlaEvent;
  };
  const early = rest.filter((entry) => Date.parse(entry.at) < start);
  const late = rest.filter((entry) => Date.parse(entry.at) >= start);
  return [toEvent(created), ...early.map(toEvent), ...late.map(toEvent)];
}
