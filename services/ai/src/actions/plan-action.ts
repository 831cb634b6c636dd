/**
 * Whether the assistant acts on one of its predictions, and exactly what it would write
 * (docs/assistant.md, "When it acts"): pure rules over the project's guardrails, the ticket as the
 * corpus saw it, and the counts the executor read. Either a plan, whose `expected` values the
 * ticket service checks before it writes `set` (a person's edit in between makes the action a
 * skipped conflict, never an overwrite), or the reason it does not act. The plan's `before` and
 * `after` are exactly the touched fields, which is what an exact revert restores.
 */
import { TICKET_PRIORITIES, type TicketPriority, type AutonomyActionType } from '@tix/protos';
import type { GuardrailsDocument } from '../autonomy/guardrails.js';

/** A ticket as the corpus has it (ai_documents). */
export interface TicketState {
  ticketId: number;
  ticketTypeId: number;
  status: string;
  isClosed: boolean;
  priority: string;
  /** The priority was the default, not chosen by whoever filed the ticket. */
  priorityDefaulted: boolean;
  assignedTo: number | null;
  tags: readonly string[];
  mergedIntoId: number | null;
  deleted: boolean;
  createdAt: Date;
}

export interface PredictionToAct {
  actionType: AutonomyActionType;
  value: unknown;
  confidence: number;
  /** The tickets it was drawn from (an internal note names them). */
  sources?: readonly { ticket_number: string }[];
}

/** What the executor read before asking, in the transaction that will insert the action. */
export interface ActionContext {
  actionsLastHour: number;
  actionsOnTicket: number;
  /** An action of this type was already taken on this ticket (duplicates: one per ticket). */
  alreadyActedOnTicket: boolean;
  pausedActionTypes: readonly AutonomyActionType[];
  /** For assign: whether the predicted user is active, and their open tickets. */
  assignee?: { active: boolean; openTickets: number };
  /** For close_duplicate: the predicted target, and whether others were merged into the source. */
  duplicateTarget?: TicketState | null;
  sourceHasMergedTickets?: boolean;
  /** For the reply types: someone other than the customer (a person or the assistant) already replied publicly. */
  replied?: boolean;
  /** A number in [0, 1) drawn for review sampling. */
  sample: number;
}

export type SkipReason =
  | 'not_auto'
  | 'paused'
  | 'below_threshold'
  | 'out_of_scope'
  | 'hourly_cap'
  | 'ticket_cap'
  | 'not_allowed'
  | 'explicit_priority'
  | 'would_downgrade'
  | 'already_assigned'
  | 'assignee_unavailable'
  | 'no_change'
  | 'duplicate_guard'
  | 'already_replied';

export interface ActionPlan {
  actionType: AutonomyActionType;
  threshold: number;
  /** The touched fields before and after, by public name. */
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  /**
   * What CompareAndSetTicket checks and writes; for the reply types, `set.comment` is the comment to
   * create (its id and content hash join `after` once written).
   */
  expected: Record<string, unknown>;
  set: Record<string, unknown>;
  /** Into the audit queue (sampled, or below always_review_below), or acknowledged at once. */
  needsReview: boolean;
}

export type Decision = { act: true; plan: ActionPlan } | { act: false; reason: SkipReason; detail: string };

const skip = (reason: SkipReason, detail: string): Decision => ({ act: false, reason, detail });

const priorityRank = (priority: string) => TICKET_PRIORITIES.indexOf(priority as TicketPriority);

/** The scope rules of the guardrails (ticket types, statuses, excluded tags and priorities). */
function outOfScope(guardrails: GuardrailsDocument, ticket: TicketState): string | null {
  const { scope } = guardrails;
  if (ticket.deleted || ticket.isClosed || ticket.mergedIntoId !== null)
    return 'the ticket is closed or gone';
  if (scope.ticket_type_ids !== null && !scope.ticket_type_ids.includes(ticket.ticketTypeId))
    return `ticket type ${ticket.ticketTypeId} is out of scope`;
  if (scope.statuses !== null && !scope.statuses.includes(ticket.status))
    return `status ${ticket.status} is out of scope`;
  const excludedTag = ticket.tags.find((tag) => scope.exclude_tags.includes(tag));
  if (excludedTag !== undefined) return `tag ${excludedTag} is excluded`;
  if ((scope.exclude_priorities as readonly string[]).includes(ticket.priority))
    return `priority ${ticket.priority} is excluded`;
  return null;
}

/** Why the assistant's own rules hold a prediction back whatever its mode: it lowers a priority. */
export type HeldBack = Extract<SkipReason, 'would_downgrade'>;

/**
 * Whether the assistant's own rules hold `prediction` back for a ticket now at `ticket.priority`,
 * and why: a lower priority under `never_downgrade`. The planner skips it for this reason, and each
 * prediction the service lists carries it, so the console does not offer what the assistant would
 * not do (docs/assistant.md). Unlike the other skip reasons it does not depend on the mode, the
 * confidence or the caps.
 */
export function heldBack(
  guardrails: GuardrailsDocument,
  ticket: Pick<TicketState, 'priority'>,
  prediction: Pick<PredictionToAct, 'actionType' | 'value'>,
): HeldBack | null {
  if (prediction.actionType !== 'set_priority' || !guardrails.actions.set_priority.never_downgrade)
    return null;
  const value = priorityRank(String(prediction.value));
  return value !== -1 && value < priorityRank(ticket.priority) ? 'would_downgrade' : null;
}

/** What the action would write, or why it would not (the type's own rules). */
function effectOf(
  guardrails: GuardrailsDocument,
  ticket: TicketState,
  prediction: PredictionToAct,
  context: ActionContext,
): Pick<ActionPlan, 'before' | 'after' | 'expected' | 'set'> | Decision {
  const { actions } = guardrails;
  switch (prediction.actionType) {
    case 'set_priority': {
      const rules = actions.set_priority;
      const value = String(prediction.value);
      if (!(rules.allowed_values as readonly string[]).includes(value))
        return skip('not_allowed', `priority ${value} is not allowed`);
      if (!ticket.priorityDefaulted) return skip('explicit_priority', 'the priority was chosen when filed');
      if (value === ticket.priority) return skip('no_change', `already ${value}`);
      const held = heldBack(guardrails, ticket, prediction);
      if (held !== null) return skip(held, `${ticket.priority} would become ${value}`);
      return {
        before: { priority: ticket.priority },
        after: { priority: value },
        expected: { priority: ticket.priority },
        set: { priority: value },
      };
    }
    case 'assign': {
      const rules = actions.assign;
      const userId = Number(prediction.value);
      if (ticket.assignedTo !== null)
        return skip('already_assigned', `assigned to user ${ticket.assignedTo}`);
      if (rules.allowed_user_ids !== null && !rules.allowed_user_ids.includes(userId))
        return skip('not_allowed', `user ${userId} is not allowed`);
      if (!context.assignee?.active) return skip('assignee_unavailable', `user ${userId} is not active`);
      if (context.assignee.openTickets >= rules.max_open_per_user)
        return skip(
          'assignee_unavailable',
          `user ${userId} has ${context.assignee.openTickets} open tickets`,
        );
      return {
        before: { assigned_to: null },
        after: { assigned_to: userId },
        expected: { assigned_to: null },
        set: { assigned_to: userId },
      };
    }
    case 'add_tags': {
      const allowed = actions.add_tags.allowed_tags;
      const predicted = Array.isArray(prediction.value) ? (prediction.value as unknown[]).map(String) : [];
      const added = predicted.filter(
        (tag) => !ticket.tags.includes(tag) && (allowed === null || allowed.includes(tag)),
      );
      if (added.length === 0) return skip('no_change', 'no allowed tag to add');
      return {
        before: { tags: [...ticket.tags] },
        after: { tags: [...ticket.tags, ...added] },
        expected: {},
        set: { tags_add: added },
      };
    }
    case 'close_duplicate': {
      const rules = actions.close_duplicate;
      const target = context.duplicateTarget;
      const guard = duplicateGuard(ticket, target ?? null, rules, context);
      if (guard !== null) return skip('duplicate_guard', guard);
      return {
        before: { merged_into_id: null, status: ticket.status },
        after: { merged_into_id: target!.ticketId },
        expected: { merged_into_id: null, status: ticket.status },
        set: { merged_into_id: target!.ticketId },
      };
    }
    case 'post_internal_note':
    case 'send_reply': {
      const content = (prediction.value as { content?: unknown } | null)?.content;
      if (typeof content !== 'string' || content.trim() === '') return skip('no_change', 'no drafted reply');
      if (context.replied) return skip('already_replied', 'the ticket already has a reply');
      const isInternal = prediction.actionType === 'post_internal_note';
      return {
        before: { comment_id: null },
        after: { comment_id: null },
        expected: {},
        set: {
          comment: {
            content: isInternal ? internalNote(content, prediction.sources ?? []) : content,
            is_internal: isInternal,
          },
        },
      };
    }
  }
}

/** The internal note an agent reads: the draft, marked as the assistant's, for them to send or not. */
export function internalNote(reply: string, sources: readonly { ticket_number: string }[]): string {
  const from =
    sources.length === 0 ? '' : `, from ${sources.map((source) => source.ticket_number).join(', ')}`;
  return `AI draft reply (not sent to the customer${from}):\n\n${reply}`;
}

/**
 * The duplicate guards (docs/assistant.md, "When it acts"): the target is open, not merged, not
 * deleted, older than the source, never the source, of the same type when required, no older than
 * max_age_days; the source has no tickets merged into it (no chains) and is closed as a duplicate
 * once at most.
 */
export function duplicateGuard(
  source: TicketState,
  target: TicketState | null,
  rules: GuardrailsDocument['actions']['close_duplicate'],
  context: Pick<ActionContext, 'alreadyActedOnTicket' | 'sourceHasMergedTickets'>,
): string | null {
  if (target === null) return 'no target';
  if (target.ticketId === source.ticketId) return 'the target is the ticket itself';
  if (target.deleted || target.isClosed) return 'the target is closed';
  if (target.mergedIntoId !== null) return 'the target is merged into another ticket';
  if (target.createdAt >= source.createdAt || target.ticketId > source.ticketId) return 'the target is newer';
  if (rules.require_same_type && target.ticketTypeId !== source.ticketTypeId)
    return 'the target is of another type';
  if (source.createdAt.getTime() - target.createdAt.getTime() > rules.max_age_days * 86_400_000)
    return `the target is older than ${rules.max_age_days} days`;
  if (context.sourceHasMergedTickets) return 'other tickets are merged into this one';
  if (context.alreadyActedOnTicket) return 'already closed as a duplicate once';
  return null;
}

/** Whether to act on `prediction` for `ticket` under `guardrails`, and how. */
export function planAction(
  guardrails: GuardrailsDocument,
  ticket: TicketState,
  prediction: PredictionToAct,
  context: ActionContext,
): Decision {
  const rules = guardrails.actions[prediction.actionType];
  if (rules.mode !== 'auto') return skip('not_auto', `${prediction.actionType} is ${rules.mode}`);
  if (context.pausedActionTypes.includes(prediction.actionType))
    return skip('paused', `${prediction.actionType} is paused for its revert rate`);
  if (prediction.confidence < rules.threshold)
    return skip('below_threshold', `confidence ${prediction.confidence} is below ${rules.threshold}`);
  const scope = outOfScope(guardrails, ticket);
  if (scope !== null) return skip('out_of_scope', scope);
  if (context.actionsLastHour >= guardrails.limits.max_actions_per_hour)
    return skip('hourly_cap', `${context.actionsLastHour} actions in the last hour`);
  if (context.actionsOnTicket >= guardrails.limits.max_actions_per_ticket)
    return skip('ticket_cap', `${context.actionsOnTicket} actions on this ticket`);
  const effect = effectOf(guardrails, ticket, prediction, context);
  if ('act' in effect) return effect;
  const needsReview =
    context.sample < guardrails.review.sample_rate ||
    prediction.confidence < guardrails.review.always_review_below;
  return {
    act: true,
    plan: { actionType: prediction.actionType, threshold: rules.threshold, ...effect, needsReview },
  };
}
