/** Creating a comment: on a live ticket of the project, written by the caller, HTML sanitized. */
import { actorOf, requirePrincipal, type Caller } from '@tix/kit';
import type { CommentDeps } from './comment-deps.js';
import { commentCreated } from './comment-events.js';
import type { CommentRow } from './comment-row.js';
import { checkNewComment } from './comment-rules.js';
import { requireLiveTicket } from './ticket-check.js';

export interface CreateCommentInput {
  projectId: number;
  ticketId: number;
  content: string;
  /** Absent or null: no HTML. */
  contentHtml?: string | null;
  /** Absent: internal (spec default). */
  isInternal?: boolean;
}

/**
 * The new comment, with comment.created in the outbox. 401 without a principal, 404 `Ticket not
 * found` unless the ticket is live in the project, then 422 naming every invalid field.
 */
export async function createComment(
  deps: CommentDeps,
  input: CreateCommentInput,
  caller: Caller,
): Promise<CommentRow> {
  const author = requirePrincipal(caller.principal);
  await requireLiveTicket(deps.tickets, input, caller);
  const fields = checkNewComment(input);
  return deps.store.insert(
    { projectId: input.projectId, ticketId: input.ticketId, userId: author.user_id, ...fields },
    (row) => [commentCreated(row, actorOf(author))],
  );
}
