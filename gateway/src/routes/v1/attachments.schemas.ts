/**
 * The request schemas of the attachment routes (spec "Attachments"), and the gateway's side of the
 * upload limits. Path ids answer 400 with the spec's `Invalid ... id`; the multipart body is checked
 * while it streams (http/multipart-upload.ts), not by a schema.
 */
import { z } from 'zod';
import { ATTACHMENT_LIMITS } from '@tix/protos';
import { idParam } from '../../http/schema-fields.js';

export const INVALID_ATTACHMENT_ID_MESSAGE = 'Invalid attachment id';

export { ticketIdParams } from './tickets.schemas.js';

export const attachmentIdParams = z.object({
  id: idParam({ message: INVALID_ATTACHMENT_ID_MESSAGE, description: 'Attachment id.', example: 7 }),
});

/** The form field the file travels in. */
export const FILE_FIELD = 'file';

/** 25 MiB, as the attachment service's default. */
export const DEFAULT_ATTACHMENT_MAX_BYTES = ATTACHMENT_LIMITS.defaultMaxBytes;

/** How the gateway bounds attachment transfers. */
export interface AttachmentLimits {
  /** Largest file; the gateway stops reading past it (the service enforces the same limit). */
  maxBytes: number;
  /** Deadline of one upload or download call to the attachment service (slow clients take long). */
  transferDeadlineMs: number;
}

/** `File is larger than 25 MB` for 25 MiB: the attachment service's message, from the same function. */
export { fileTooLargeMessage } from '@tix/protos';
