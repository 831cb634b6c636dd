/** Spec Attachment as the API sends it, declared once (the gateway's OpenAPI document names it `Attachment`). */
import { z } from 'zod';
import { idField as id, timestampField as timestamp } from './fields.js';

export const attachmentSchema = z
  .object({
    id: id('Attachment id.'),
    ticket_id: id('Ticket id.'),
    original_filename: z.string(),
    mime_type: z.string(),
    size_bytes: z.number().int(),
    created_at: timestamp('Upload time'),
  })
  .meta({ description: 'File metadata (spec Attachment).' });

/** An attachment's metadata as the API sends it (the output of attachmentSchema). */
export type AttachmentJson = z.output<typeof attachmentSchema>;
