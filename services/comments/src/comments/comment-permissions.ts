/**
 * Who may change a comment (spec "Comments"): the author or team leads and above may edit it; the
 * author or admins may delete it (the contract's mayChangeAnyComment, which the console shows its
 * controls by). Checked after the 404 checks, so a caller who cannot see a comment learns nothing
 * about its author.
 */
import { AppError } from '@tix/kit';
import { mayChangeAnyComment, type Principal } from '@tix/protos';
import { DELETE_DENIED, EDIT_DENIED } from './comment-errors.js';
import type { CommentRow } from './comment-row.js';

/** True when `principal` wrote the comment or is a team lead or admin. */
export function canEditComment(principal: Principal, comment: Pick<CommentRow, 'userId'>): boolean {
  return principal.user_id === comment.userId || mayChangeAnyComment(principal.role, 'edit');
}

/** True when `principal` wrote the comment or is an admin. */
export function canDeleteComment(principal: Principal, comment: Pick<CommentRow, 'userId'>): boolean {
  return principal.user_id === comment.userId || mayChangeAnyComment(principal.role, 'delete');
}

/** 403 `Only the author or a team lead can edit this comment` unless canEditComment. */
export function assertCanEditComment(principal: Principal, comment: Pick<CommentRow, 'userId'>): void {
  if (!canEditComment(principal, comment)) throw AppError.permissionDenied(EDIT_DENIED);
}

/** 403 `Only the author or an admin can delete this comment` unless canDeleteComment. */
export function assertCanDeleteComment(principal: Principal, comment: Pick<CommentRow, 'userId'>): void {
  if (!canDeleteComment(principal, comment)) throw AppError.permissionDenied(DELETE_DENIED);
}
