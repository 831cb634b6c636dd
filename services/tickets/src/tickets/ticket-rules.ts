/**
 * The rules of a ticket's own fields (spec "Ticket" and limits): title, description, priority,
 * tags and status. Each check records its messages in a FieldErrors and returns the normalised
 * value, so a request's every problem is reported at once.
 */
import type { FieldErrors } from '@tix/kit';
import {
  codePointLength,
  isTicketPriority,
  TICKET_LIMITS,
  TICKET_PRIORITIES,
  type TicketPriority,
  hasControlCharacters,
  hasLoneSurrogate,
} from '@tix/protos';
import { findStatus, statusList, type ProjectWorkflow, type WorkflowStatus } from '../lookup/workflow.js';

/** Records why `text` cannot be stored (control characters, invalid Unicode); true when it can. */
function checkCharacters(
  errors: FieldErrors,
  field: string,
  label: string,
  text: string,
  multiLine: boolean,
) {
  if (hasControlCharacters(text, multiLine)) {
    errors.add(field, `${label} must not contain control characters`);
    return false;
  }
  if (hasLoneSurrogate(text)) {
    errors.add(field, `${label} must be valid Unicode text`);
    return false;
  }
  return true;
}

/** Title: trimmed, 1 to 200 code points (whitespace only counts as empty), one line. */
export function checkTitle(errors: FieldErrors, value: string): string {
  const title = value.trim();
  if (title.length === 0) errors.add('title', 'Title is required');
  else if (codePointLength(title) > TICKET_LIMITS.title)
    errors.add('title', `Title must be at most ${TICKET_LIMITS.title} characters`);
  else checkCharacters(errors, 'title', 'Title', title, false);
  return title;
}

/** Description: kept as written (markdown), at most 5000 code points; tabs and line breaks allowed. */
export function checkDescription(errors: FieldErrors, value: string): string {
  if (codePointLength(value) > TICKET_LIMITS.description)
    errors.add('description', `Description must be at most ${TICKET_LIMITS.description} characters`);
  else checkCharacters(errors, 'description', 'Description', value, true);
  return value;
}

export const PRIORITY_MESSAGE = `Priority must be one of ${TICKET_PRIORITIES.join(', ')}`;

/** Priority: one of low, medium, high, critical. */
export function checkPriority(
  errors: FieldErrors,
  value: string,
  field = 'priority',
): TicketPriority | undefined {
  if (isTicketPriority(value)) return value;
  errors.add(field, PRIORITY_MESSAGE);
  return undefined;
}

/**
 * Tags: each trimmed and lower-cased, 1 to 50 code points, one line; duplicates (after
 * normalising) collapse into one; at most 20. Returns them in first-seen order.
 */
export function normaliseTags(errors: FieldErrors, values: readonly string[]): string[] {
  const tags: string[] = [];
  for (const raw of values) {
    const tag = raw.trim().toLowerCase();
    const length = codePointLength(tag);
    if (length === 0 || length > TICKET_LIMITS.tag) {
      if (!errors.has('tags')) errors.add('tags', `Each tag must be 1 to ${TICKET_LIMITS.tag} characters`);
      continue;
    }
    if (!checkCharacters(errors, 'tags', 'Tags', tag, false)) continue;
    if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > TICKET_LIMITS.tags)
    errors.add('tags', `Tags must have at most ${TICKET_LIMITS.tags} items`);
  return tags;
}

/** The message for a status slug the project's workflow does not have. */
export function unknownStatusMessage(project: ProjectWorkflow): string {
  return `Status must be one of the project's statuses: ${statusList(project)}`;
}

/** Status: a slug of the project's workflow. */
export function checkStatus(
  errors: FieldErrors,
  project: ProjectWorkflow,
  slug: string,
  field = 'status',
): WorkflowStatus | undefined {
  const status = findStatus(project, slug);
  if (!status) errors.add(field, unknownStatusMessage(project));
  return status;
}

/**
 * requester_id: a customer id (positive). Whether the customer exists is the gateway's to check
 * (the customers service owns them; docs/decisions.md, "Requesters and cc on tickets").
 */
export function checkRequester(errors: FieldErrors, value: number): number {
  if (!Number.isInteger(value) || value < 1) errors.add('requester_id', 'requester_id must be a customer id');
  return value;
}

/**
 * cc: customer ids (positive), duplicates collapsed in first-seen order, the requester left out (a
 * reply to all that copies the requester is no second role); at most TICKET_LIMITS.cc.
 */
export function normaliseCc(
  errors: FieldErrors,
  values: readonly number[],
  requesterId: number | null,
): number[] {
  const cc: number[] = [];
  for (const id of values) {
    if (!Number.isInteger(id) || id < 1) {
      if (!errors.has('cc')) errors.add('cc', 'Each cc entry must be a customer id');
      continue;
    }
    if (id !== requesterId && !cc.includes(id)) cc.push(id);
  }
  if (cc.length > TICKET_LIMITS.cc) errors.add('cc', `cc must have at most ${TICKET_LIMITS.cc} customers`);
  return cc;
}
