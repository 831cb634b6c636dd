/**
 * The prose of the attachment operations (routes/v1/attachments.ts) in the API description, by
 * operationId.
 */

export const ATTACHMENT_DESCRIPTIONS = {
  listAttachments: 'The path `id` is the ticket id.',
  uploadAttachment:
    '`multipart/form-data` with exactly one file in the form field `file`; streamed. Too large or an ' +
    'unsupported type answers 422 on `file`. The path `id` is the ticket id.',
  downloadAttachment: 'Streams the file itself (no redirect, no signed URL), not the JSON envelope.',
};
