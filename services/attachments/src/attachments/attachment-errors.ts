/** The refusals the attachment use cases share (messages exact). */
import { AppError } from '@tix/kit';

export const ATTACHMENT_NOT_FOUND = 'Attachment not found';
export const ATTACHMENT_DELETED_MESSAGE = 'Attachment deleted';

/** 404 `Attachment not found`: unknown, deleted, of another project, or of a ticket that is not live. */
export function attachmentNotFound(): AppError {
  return AppError.notFound(ATTACHMENT_NOT_FOUND);
}
