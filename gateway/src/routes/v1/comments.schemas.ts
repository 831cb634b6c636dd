/**
 * The request schemas of the comment routes (spec "Comments"). Validation, the typed handler input
 * and the OpenAPI description all come from these. Shape only: the comment service is the authority
 * on content (control characters, sanitizing content_html and its length afterwards, the rule that a
 * public comment never becomes internal) and answers the same messages. Unknown body fields and query
 * parameters are dropped.
 */
import { z } from 'zod';
import { COMMENT_LIMITS, fitsCodePoints } from '@tix/protos';
import { idParam } from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_COMMENT_ID_MESSAGE = 'Invalid comment id';

// ---- path ----------------------------------------------------------------------------------------

/** Path `{id}` of /comments/{id}: 1 to 2147483647, digits only. */
export const commentIdParams = z.object({
  id: idParam({ message: INVALID_COMMENT_ID_MESSAGE, description: 'Comment id.', example: 7 }),
});

// ---- GET /tickets/{ticketId}/comments ------------------------------------------------------------

const INCLUDE_INTERNAL_MESSAGE = 'include_internal must be true or false (or 1 or 0)';

/** `include_internal`: true/false or 1/0, nothing else (a typo must not silently show or hide notes). */
export const includeInternalParam = z
  .enum(['true', 'false', '1', '0'], { error: INCLUDE_INTERNAL_MESSAGE })
  .transform((value) => value === 'true' || value === '1')
  .meta({
    description: 'Include internal notes (true, the default) or only customer-visible comments (false).',
    example: 'false',
  });

export const listCommentsQuery = z.object({
  include_internal: includeInternalParam.default(true),
});

// ---- bodies --------------------------------------------------------------------------------------

const contentField = z
  .string({
    error: (issue) => (issue.input === undefined ? 'Content is required' : 'Content must be a string'),
  })
  .refine((value) => value.trim() !== '', { message: 'Content cannot be empty', abort: true })
  .refine(
    (value) => fitsCodePoints(value, COMMENT_LIMITS.content),
    `Content must be at most ${COMMENT_LIMITS.content} characters`,
  )
  .meta({
    description: `The comment as written (plain text or markdown), kept as given; not blank; at most ${COMMENT_LIMITS.content} characters.`,
    example: 'Restarted the printer; please try again.',
    maxLength: COMMENT_LIMITS.content,
  });

const contentHtmlField = z
  .string({ error: 'Content HTML must be a string or null' })
  .refine(
    (value) => fitsCodePoints(value, COMMENT_LIMITS.contentHtml),
    `Content HTML must be at most ${COMMENT_LIMITS.contentHtml} characters`,
  )
  .nullable()
  .meta({
    description:
      'An HTML rendition, sanitized by the server (allow-listed tags; links get rel="noopener noreferrer nofollow" ' +
      `and target="_blank"); at most ${COMMENT_LIMITS.contentHtml} characters, also after sanitizing. null means none (on update: clears it).`,
    example: '<p>Restarted the printer; please <a href="https://status.example.com">try again</a>.</p>',
    maxLength: COMMENT_LIMITS.contentHtml,
  });

const isInternalField = z.boolean({ error: 'is_internal must be true or false' }).meta({
  description:
    'true: a team-only note; false: visible to the customer. A public comment cannot become internal.',
  example: false,
});

export const createCommentBody = z.object(
  {
    content: contentField,
    content_html: contentHtmlField.optional(),
    is_internal: isInternalField.optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const NOTHING_TO_UPDATE = 'Give at least one field to change: content, content_html or is_internal';

export const updateCommentBody = z
  .object(
    {
      content: contentField.optional(),
      content_html: contentHtmlField.optional(),
      is_internal: isInternalField.optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .refine(
    (body) => body.content !== undefined || body.content_html !== undefined || body.is_internal !== undefined,
    { message: NOTHING_TO_UPDATE },
  );

export type ListCommentsQuery = z.output<typeof listCommentsQuery>;
export type CreateCommentBody = z.output<typeof createCommentBody>;
export type UpdateCommentBody = z.output<typeof updateCommentBody>;
