/**
 * The one sentence a person reads for an entry ("Tix AI changed the priority of SUP-42 from Medium
 * to High", "Ada Lovelace activated the assistant's kill switch for every project: "Tags look
 * wrong""), composed when read, so a renamed user reads under their current name. Pure: the
 * caller resolves names and ticket numbers first (people.ts, feed-store subjects).
 */
import type { FieldChange } from '@tix/protos';
import type { ActivityRow } from './feed-store.js';

export interface SummaryNames {
  /** A user's current name, or null when unknown. */
  user(userId: number): string | null;
  /** A ticket's number (SUP-42), or null when the log has not seen it. */
  ticket(ticketId: number): string | null;
}

/** What the changed fields are called in a sentence. */
const FIELD_NOUNS: Record<string, string> = {
  title: 'title',
  description: 'description',
  status: 'status',
  priority: 'priority',
  assigned_to: 'assignee',
  custom_fields: 'custom fields',
  tags: 'tags',
  resolution_type: 'resolution',
  merged_into_id: 'merge target',
  ticket_type_id: 'ticket type',
};

/** `in_progress` -> `In progress`: a slug as a label when only the slug is known. */
export function humanize(slug: unknown): string {
  if (typeof slug !== 'string' || slug === '') return 'none';
  const words = slug.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const quoted = (value: unknown, max = 80) => {
  const characters = Array.from(typeof value === 'string' ? value : '');
  return `"${characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : characters.join('')}"`;
};

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** Who made the change, as a sentence starts. */
export function actorLabel(row: ActivityRow, names: SummaryNames): string {
  const name =
    row.actor_user_id === null ? null : (names.user(row.actor_user_id) ?? `User #${row.actor_user_id}`);
  switch (row.actor_kind) {
    case 'api_key':
      return `${name ?? 'An integration'} (API key #${row.actor_api_key_id ?? '?'})`;
    case 'system':
      return name ?? 'Tix';
    default:
      return name ?? 'Someone';
  }
}

/** What happened to the ticket's fields, from the verb on ("changed the status of SUP-42 ..."). */
function describeUpdate(changes: Record<string, FieldChange>, ticket: string, names: SummaryNames): string {
  const fields = Object.keys(changes);
  if (fields.length === 0) return `moved ${ticket} on the board`;
  if (fields.length > 1)
    return `updated the ${listOf(fields.map((field) => FIELD_NOUNS[field] ?? field))} of ${ticket}`;
  const field = fields[0] as string;
  const { from, to } = changes[field] as FieldChange;
  const person = (id: unknown) => (typeof id === 'number' ? (names.user(id) ?? `User #${id}`) : 'nobody');
  switch (field) {
    case 'status':
    case 'priority':
      return `changed the ${field} of ${ticket} from ${humanize(from)} to ${humanize(to)}`;
    case 'assigned_to':
      if (to === null) return `unassigned ${ticket} from ${person(from)}`;
      if (from === null) return `assigned ${ticket} to ${person(to)}`;
      return `reassigned ${ticket} from ${person(from)} to ${person(to)}`;
    case 'title':
      return `renamed ${ticket} from ${quoted(from)} to ${quoted(to)}`;
    case 'resolution_type':
      return to === null
        ? `cleared the resolution of ${ticket}`
        : `set the resolution of ${ticket} to ${humanize(to)}`;
    case 'tags': {
      const before = stringsOf(from);
      const after = stringsOf(to);
      const added = after.filter((tag) => !before.includes(tag));
      const removed = before.filter((tag) => !after.includes(tag));
      const parts = [
        ...(added.length > 0 ? [`added ${added.length === 1 ? 'tag' : 'tags'} ${listOf(added)}`] : []),
        ...(removed.length > 0
          ? [`removed ${removed.length === 1 ? 'tag' : 'tags'} ${listOf(removed)}`]
          : []),
      ];
      return parts.length === 0 ? `reordered the tags of ${ticket}` : `${parts.join(' and ')} on ${ticket}`;
    }
    case 'custom_fields': {
      const before = (from ?? {}) as Record<string, unknown>;
      const after = (to ?? {}) as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
        (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
      );
      return `changed ${listOf(keys)} of ${ticket}`;
    }
    default:
      return `changed the ${FIELD_NOUNS[field] ?? field} of ${ticket}`;
  }
}

/** A guardrail setting's value in a sentence: its JSON, cut at 40 characters. */
function settingValue(value: unknown): string {
  const characters = Array.from(JSON.stringify(value ?? null));
  return characters.length > 40 ? `${characters.slice(0, 39).join('')}…` : characters.join('');
}

/** Guardrail changes named in a summary; the rest are counted. */
export const MAX_LISTED_SETTINGS = 3;

/** ": a from x to y, b from ... and 2 more", or nothing when no setting is named. */
function describeSettings(changes: Record<string, FieldChange>): string {
  // Sorted: JSONB keeps keys shortest first, which would scatter one section's settings.
  const paths = Object.keys(changes).sort();
  const listed = paths.slice(0, MAX_LISTED_SETTINGS).map((path) => {
    const { from, to } = changes[path] as FieldChange;
    return `${path} from ${settingValue(from)} to ${settingValue(to)}`;
  });
  const more = paths.length - listed.length;
  return listed.length === 0 ? '' : `: ${listOf(more > 0 ? [...listed, `${more} more`] : listed)}`;
}

/** `set_priority` -> `set priority`. */
const actionTypeLabel = (type: unknown) => humanize(type).toLowerCase();

/** The sentence of an ai.* entry (log/assistant-entries.ts), or null for a type it does not know. */
function summarizeAssistant(row: ActivityRow, actor: string, ticket: string): string | null {
  const detail = (key: string) => row.details?.[key] ?? null;
  const reason = typeof detail('reason') === 'string' ? `: ${quoted(detail('reason'))}` : '';
  const where = row.project_id === null ? 'every project' : 'this project';
  switch (row.type) {
    case 'ai.guardrails_updated':
      return `${actor} changed the assistant's guardrails${describeSettings(row.changes)}`;
    case 'ai.kill_switch_activated':
      return `${actor} activated the assistant's kill switch for ${where}${reason}`;
    case 'ai.kill_switch_cleared':
      return `${actor} cleared the assistant's kill switch for ${where}${reason}`;
    case 'ai.action_acknowledged': {
      const id = detail('action_id');
      const note =
        typeof detail('review_note') === 'string' ? `, noting ${quoted(detail('review_note'))}` : '';
      return `${actor} acknowledged the assistant's ${actionTypeLabel(detail('action_type'))} action${
        typeof id === 'number' ? ` #${id}` : ''
      } on ${ticket}${note}`;
    }
    case 'ai.action_type_paused': {
      const executed = detail('executed');
      const reverted = detail('reverted');
      const hours = detail('window_hours');
      const why =
        typeof executed === 'number' && typeof reverted === 'number' && typeof hours === 'number'
          ? `: ${reverted} of ${executed} reverted in the last ${hours} hours`
          : '';
      return `${actor} paused the assistant's ${actionTypeLabel(detail('action_type'))} actions in this project${why}`;
    }
    default:
      return null;
  }
}

/** The entry's sentence. */
export function summarize(row: ActivityRow, names: SummaryNames): string {
  const actor = actorLabel(row, names);
  const ticket = row.ticket_number ?? (row.ticket_id === null ? 'a ticket' : `ticket #${row.ticket_id}`);
  const file = quoted(row.filename ?? 'a file', 120);
  switch (row.type) {
    case 'ticket.created':
      return `${actor} created ${ticket} ${quoted(row.title ?? '')}`;
    case 'ticket.updated':
      return `${actor} ${describeUpdate(row.changes, ticket, names)}`;
    case 'ticket.deleted':
      return `${actor} deleted ${ticket}`;
    case 'ticket.restored':
      return `${actor} restored ${ticket}`;
    case 'ticket.merged': {
      const target = row.changes.merged_into_id?.to;
      const into =
        typeof target === 'number' ? (names.ticket(target) ?? `ticket #${target}`) : 'another ticket';
      return `${actor} merged ${ticket} into ${into}`;
    }
    case 'comment.created':
      return row.comment_internal === false
        ? `${actor} replied publicly on ${ticket}`
        : `${actor} added an internal note to ${ticket}`;
    case 'comment.updated':
      return `${actor} edited a comment on ${ticket}`;
    case 'comment.deleted':
      return `${actor} deleted a comment on ${ticket}`;
    case 'attachment.created':
      return `${actor} attached ${file} to ${ticket}`;
    case 'attachment.deleted':
      return `${actor} removed the attachment ${file} from ${ticket}`;
    default:
      return summarizeAssistant(row, actor, ticket) ?? `${actor}: ${row.type} on ${ticket}`;
  }
}
