/**
 * The feed's share of the assistant's autonomy events (ai.*, services/ai's outbox), one entry per
 * happening a person would want to see, none for what a ticket or comment entry already records:
 *
 * - ai.guardrails_updated: a project entry, `changes` by dotted path as the event has them;
 * - ai.kill_switch_activated / _cleared: a project entry, or for the global switch an entry without
 *   a project, which the feed of each project in use before it shows (feed-store.ts);
 * - ai.action_acknowledged: an entry on the action's ticket (its history shows it), `changes` {}:
 *   the review changed no field of the ticket;
 * - ai.action_type_paused: a project entry made by the system;
 * - ai.action_executed and ai.action_reverted: no entry. The write the action made (or its revert)
 *   is already an entry of its own, whose actor says `ai` with `via: ai_action` (or the person who
 *   reverted, `via: ai_revert`); a second entry would tell the same change twice.
 *
 * `details` keeps what the summary says beyond `changes` (summary.ts composes it when read).
 */
import type { DomainEvent } from '@tix/protos';
import { finiteNumber, plainObject, positiveInt, text } from './event-values.js';
import type { EntryDraft } from './entry-draft.js';

/** A person's text (a reason, a note), null when absent or empty. */
const textOf = (value: unknown): string | null => (text(value) === '' ? null : text(value));

/** The part of the entry that differs by type, or null: the event adds no entry. */
function assistantPart(event: DomainEvent): Pick<EntryDraft, 'ticketId' | 'changes' | 'details'> | null {
  const { data } = event;
  const changes = event.changes ?? {};
  switch (event.type) {
    case 'ai.guardrails_updated':
      return { ticketId: null, changes, details: { version: finiteNumber(data.version) } };
    case 'ai.kill_switch_activated':
    case 'ai.kill_switch_cleared':
      return {
        ticketId: null,
        changes,
        // The global switch's entry is the one without a project.
        details: {
          reason: textOf(event.type === 'ai.kill_switch_activated' ? data.reason : data.clear_reason),
        },
      };
    case 'ai.action_acknowledged': {
      const action = plainObject(data.action);
      const ticketId = positiveInt(action.ticket_id);
      // An acknowledgement without its ticket has nowhere to be shown.
      if (ticketId === null) return null;
      return {
        ticketId,
        changes: {},
        details: {
          action_id: positiveInt(action.id),
          action_type: textOf(action.action_type),
          review_note: textOf(action.review_note),
        },
      };
    }
    case 'ai.action_type_paused':
      return {
        ticketId: null,
        changes,
        details: {
          action_type: textOf(data.action_type),
          executed: finiteNumber(data.executed),
          reverted: finiteNumber(data.reverted),
          revert_rate: finiteNumber(data.revert_rate),
          window_hours: finiteNumber(data.window_hours),
        },
      };
    default:
      // ai.action_executed, ai.action_reverted (see the file header) and types added later.
      return null;
  }
}

/** The entry of an ai.* event, or null when it adds none (see the file header). */
export function assistantEntry(event: DomainEvent, actor: EntryDraft['actor']): EntryDraft | null {
  const part = assistantPart(event);
  if (part === null) return null;
  return {
    foldKey: `event:${event.id}`,
    eventId: event.id,
    type: event.type,
    occurredAt: event.occurred_at,
    projectId: event.project_id ?? null,
    actor,
    comment: null,
    filename: null,
    ...part,
  };
}
