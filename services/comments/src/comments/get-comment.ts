/** Reading one comment: of the caller's project, on a ticket that is still live there. */
import type { Caller } from '@tix/kit';
import type { CommentDeps } from './comment-deps.js';
import { commentNotFound } from './comment-errors.js';
import type { CommentRow } from './comment-row.js';
import { requireCommentTicket } from './ticket-check.js';

export interface CommentAddress {
  projectId: number;
  id: number;
}

/**
 * The comment, when it exists in the project and its ticket is live there; 404 `Comment not found`
 * otherwise (also for another project's comment id, or a deleted ticket's comment).
 */
export async function getComment(
  deps: CommentDeps,
  address: CommentAddress,
  caller: Caller,
): Promise<CommentRow> {
  const found = await deps.store.find(address.projectId, address.id);
  if (!found) throw commentNotFound();
  await requireCommentTicket(deps.tickets, found, caller);
  return found;
}
