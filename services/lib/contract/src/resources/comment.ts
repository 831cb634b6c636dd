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
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
  })
  .meta({ description: 'A comment (spec Comment).' });

/** A comment as the API sends it (the output of commentSchema). */
export type CommentJson = z.output<typeof commentSchema>;
