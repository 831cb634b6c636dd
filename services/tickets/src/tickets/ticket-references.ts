/**
 * Rules about what a ticket points at in the lookup service: its type must be a type of the
 * ticket's project that is not retired, and an assignee must be an existing, active user.
 */
import type { FieldErrors } from '@tix/kit';
import type { LookupCaller, LookupDirectory, TicketTypeInfo, UserInfo } from '../lookup/lookup-directory.js';

export const TICKET_TYPE_NOT_IN_PROJECT = 'Ticket type not found in this project';
/** A retired type keeps its tickets but takes no new ones. */
export const TICKET_TYPE_RETIRED = 'Ticket type is retired';

/** Why `user` (looked up by `userId`) cannot be assigned, or undefined when it can. */
export function assigneeProblem(userId: number, user: UserInfo | null): string | undefined {
  if (!user) return `User ${userId} does not exist`;
  if (!user.isActive) return `User ${userId} is not active`;
  return undefined;
}

/** Records a problem with assigning `userId` under `field`. */
export async function checkAssignee(
  errors: FieldErrors,
  lookup: LookupDirectory,
  userId: number,
  caller: LookupCaller,
  field = 'assigned_to',
): Promise<void> {
  const problem = assigneeProblem(userId, await lookup.user(userId, caller));
  if (problem) errors.add(field, problem);
}

/**
 * The ticket type when a ticket may take it (a type of the project, not retired); records a
 * ticket_type_id error otherwise.
 */
export async function checkTicketType(
  errors: FieldErrors,
  lookup: LookupDirectory,
  projectId: number,
  typeId: number,
  caller: LookupCaller,
): Promise<TicketTypeInfo | undefined> {
  const type = await lookup.ticketType(projectId, typeId, caller);
  if (!type || type.projectId !== projectId) {
    errors.add('ticket_type_id', TICKET_TYPE_NOT_IN_PROJECT);
    return undefined;
  }
  if (type.retiredAt !== null) {
    errors.add('ticket_type_id', TICKET_TYPE_RETIRED);
    return undefined;
  }
  return type;
}
