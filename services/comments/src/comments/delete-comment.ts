/**
 * Deleting a comment. The row is removed for good (comments have no restore, and a deleted reply
 * should not linger in the database); comment.deleted, carrying the comment as it was, is written in
 * the same transaction. Afterwards the id is 404. Refusals: 401, 404, then 403 (not the author, not
 * an admin).
 *
 * A guarded delete (`expectedContentSha256`, how the assistant reverts its own comment) removes the
 * comment only while its content is still the one hashed: the hex SHA-256 of the UTF-8 content is
 * compared on the locked row and the row deleted in the same transaction, so a person's edit is never
 * lost to a revert; otherwise 409 `Comment was edited after this action` and nothing is written.
 */
import { actorOf, AppError, contentSha256, requirePrincipal, type Caller } from '@tix/kit';
import { roleAtLeast } from '@tix/protos';
import type { CommentDeps } from './comment-deps.js';
import { commentNotFound } from './comment-errors.js';
import { commentDeleted } from './comment-events.js';
import { assertCanDeleteComment } from './comment-permissions.js';
import { getComment, type CommentAddress } from './get-comment.js';

export const COMMENT_DELETED_MESSAGE = 'Comment deleted';
export const COMMENT_EDITED_SINCE = 'Comment was edited after this action';
export const BAD_CONTENT_HASH = 'expected_content_sha256 must be 64 hexadecimal characters';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Deletes the comment; `{ message: 'Comment deleted' }`. */
export async function deleteComment(
  deps: CommentDeps,
  address: CommentAddress & { expectedContentSha256?: string },
  caller: Caller,
): Promise<{ message: string }> {
  const principal = requirePrincipal(caller.principal);
  const expected = address.expectedContentSha256?.toLowerCase();
  // A value that is no SHA-256 can never match: the caller's mistake, not an edit.
  if (expected !== undefined && !SHA256_HEX.test(expected)) throw AppError.badRequest(BAD_CONTENT_HASH);
  const found = await getComment(deps, address, caller);
  // A team lead reverting the assistant's comment: the ai service sends `ai_revert` only for the comment
  // its own action wrote, guarded by the content hash (an admin's forced revert is an admin's delete).
  const revertsAssistant =
    expected !== undefined && principal.via?.type === 'ai_revert' && roleAtLeast(principal.role, 'team_lead');
  if (!revertsAssistant) assertCanDeleteComment(principal, found);
  const deleted = await deps.store.delete(
    address.projectId,
    address.id,
    (row, deletedAt) => [commentDeleted(row, deletedAt, actorOf(principal))],
    expected === undefined
      ? undefined
      : (current) => {
          if (contentSha256(current.content) !== expected) throw AppError.conflict(COMMENT_EDITED_SINCE);
        },
  );
  if (!deleted) throw commentNotFound();
  return { message: COMMENT_DELETED_MESSAGE };
}
