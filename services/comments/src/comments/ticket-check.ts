/**
 * A comment hangs off a live ticket of the caller's project, and only the ticket service knows which
 * tickets those are. Every request asks it (GetTicket, as the caller, with the caller's correlation
 * id) instead of keeping a copy: a deleted or moved-away ticket hides its comments at once.
 */
import { AppError, type Caller, type ServiceClient } from '@tix/kit';
import { commentNotFound } from './comment-errors.js';
import type { CommentRow } from './comment-row.js';

/** What the comment service needs of the ticket service. */
export type TicketsClient = Pick<ServiceClient<'tickets'>, 'GetTicket'>;

/**
 * Resolves when the ticket is live in the project. The ticket service's refusals pass through as
 * they are: 404 `Ticket not found` (unknown, deleted, or of another project), 503 when it is down.
 */
export async function requireLiveTicket(
  tickets: TicketsClient,
  address: { projectId: number; ticketId: number },
  caller: Caller,
): Promise<void> {
  await tickets.GetTicket(
    { project_id: address.projectId, id: address.ticketId },
    { correlationId: caller.correlationId, principal: caller.principal },
  );
}

/** Resolves when the comment's ticket is live in its project; 404 `Comment not found` otherwise. */
export async function requireCommentTicket(
  tickets: TicketsClient,
  comment: Pick<CommentRow, 'projectId' | 'ticketId'>,
  caller: Caller,
): Promise<void> {
  try {
    await requireLiveTicket(tickets, { projectId: comment.projectId, ticketId: comment.ticketId }, caller);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found') throw commentNotFound();
    throw error;
  }
}
