/** Spec Comment as the API sends it, declared once (the gateway's OpenAPI document names it `Comment`). */
import { z } from 'zod';
import { COMMENT_LIMITS } from '../vocabulary.js';
import { idField as id, timestampField as timestamp } from './fields.js';

export const commentSchema = z
  .object({
    id: id('Comment id.'),
    ticket_id: id('Ticket id.'),
    user_id: id('Author.'),
    content: z.string().meta({ description: `At most ${COMMENT_LIMITS.content} characters.` }),
    content_html: z
      .string()
      .nullable()
      .meta({ description: `Sanitized HTML, at most ${COMMENT_LIMITS.contentHtml} characters, or null.` }),
    is_internal: z.boolean().meta({ description: 'true: team-only note; false: customer-visible.' }),
    author_type: z.enum(['staff', 'customer']).meta({
      description:
        'staff, or customer for a comment a customer wrote (by mail); user_id is then the system user that wrote it for them.',
    }),
    customer_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The customer who wrote it (author_type customer), else null.' }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
  })
  .meta({ description: 'A comment (spec Comment).' });

/** A comment as the API sends it (the output of commentSchema). */
export type CommentJson = z.output<typeof commentSchema>;
