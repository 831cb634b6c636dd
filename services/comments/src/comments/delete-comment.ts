/**
 * Deleting a comment. The row is removed for good (comments have no restore, and a deleted reply
 * should not linger in the database); comment.deleted, carrying the comment as it was, is written in
 * the same transaction. Afterwards the id is 404. Refusals: 401, 404, then 403 (not the author, not
 * an admin).
 */
import { actorOf, requirePrincipal, type Caller } from '@tix/kit';
import type { CommentDeps } from './comment-deps.js';
import { commentNotFound } from './comment-errors.js';
import { commentDeleted } from './comment-events.js';
import { assertCanDeleteComment } from './comment-permissions.js';
import { getComment, type CommentAddress } from './get-comment.js';

export const COMMENT_DELETED_MESSAGE = 'Comment deleted';

/** Deletes the comment; `{ message: 'Comment deleted' }`. */
export async function deleteComment(
  deps: CommentDeps,
  address: CommentAddress,
  caller: Caller,
): Promise<{ message: string }> {
  const principal = requirePrincipal(caller.principal);
  const found = await getComment(deps, address, caller);
  assertCanDeleteComment(principal, found);
  const deleted = await deps.store.delete(address.projectId, address.id, (row, deletedAt) => [
    commentDeleted(row, deletedAt, actorOf(principal)),
  ]);
  if (!deleted) throw commentNotFound();
  return { message: COMMENT_DELETED_MESSAGE };
}
