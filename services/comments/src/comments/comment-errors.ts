/** The refusals the comment use cases share (spec messages, exact). */
import { AppError } from '@tix/kit';

export const COMMENT_NOT_FOUND = 'Comment not found';
export const EDIT_DENIED = 'Only the author or a team lead can edit this comment';
export const DELETE_DENIED = 'Only the author or an admin can delete this comment';

/** 404 `Comment not found` (unknown, of another project, or its ticket is gone). */
export function commentNotFound(): AppError {
  return AppError.notFound(COMMENT_NOT_FOUND);
}
