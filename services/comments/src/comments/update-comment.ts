/**
 * Editing a comment: only the fields given change (content_html null clears it); a public comment
 * never becomes internal. Order of refusals: 401 (no principal), 404 (comment or its ticket not
 * reachable), 403 (not the author, not a team lead or admin), 422 (fields). A change that changes
 * nothing writes nothing and emits no event.
 */
import { actorOf, requirePrincipal, type Caller } from '@tix/kit';
import type { CommentDeps } from './comment-deps.js';
import { commentNotFound } from './comment-errors.js';
import { commentUpdated } from './comment-events.js';
import { assertCanEditComment } from './comment-permissions.js';
import type { CommentRow } from './comment-row.js';
import { applyCommentEdit, checkCommentEdit } from './comment-rules.js';
import { getComment, type CommentAddress } from './get-comment.js';

export interface UpdateCommentInput extends CommentAddress {
  content?: string;
  /** A string sets it (sanitized), null clears it, absent leaves it. */
  contentHtml?: string | null;
  isInternal?: boolean;
}

/** The comment after the change, with comment.updated in the outbox when something changed. */
export async function updateComment(
  deps: CommentDeps,
  input: UpdateCommentInput,
  caller: Caller,
): Promise<CommentRow> {
  const principal = requirePrincipal(caller.principal);
  const found = await getComment(deps, input, caller);
  assertCanEditComment(principal, found);
  const edit = checkCommentEdit(found, input);
  const updated = await deps.store.update(
    input.projectId,
    input.id,
    (current) => applyCommentEdit(current, edit),
    (row, before) => [commentUpdated(row, before, actorOf(principal))],
  );
  if (!updated) throw commentNotFound();
  return updated;
}
