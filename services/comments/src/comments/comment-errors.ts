/** The refusals the comment use cases share (spec messages, exact). */
import { AppError } from '@tix/kit';

export const COMMENT_NOT_FOUND = 'Comment not found';
export const EDIT_DENIED = 'Only the author or a team lead can edit this comment';
export const DELETE_DENIED = 'Only the author or an admin can delete this comment';
export const CUSTOMER_AUTHOR_DENIED = 'Only the mail service or the portal can write a comment as a customer';
export const SOURCE_REF_DENIED = 'Only the mail service or the portal can give a source_ref';

/** 404 `Comment not found` (unknown, of another project, or its ticket is gone). */
export function commentNotFound(): AppError {
  return AppError.notFound(COMMENT_NOT_FOUND);
}
