/**
 * The request schemas of the ticket routes (spec "Tickets", plus the additive tags and tag filter)
 * and the pieces the other ticket schemas share (ticket-actions.schemas.ts: status, bulk, merge;
 * board.schemas.ts). Validation, the typed handler input and the OpenAPI description all come from
 * these. Unknown body fields and query parameters are dropped. Messages are the ones clients see in
 * `validation_errors`.
 */
import { z } from 'zod';
import { fitsCodePoints, MAX_INT32, TICKET_LIMITS, TICKET_PRIORITIES, TICKET_SORT_FIELDS } from '@tix/protos';
import {
  enumField,
  enumParam,
  idField,
  idParam,
  integerField,
  integerParam,
  pageParams,
  requiredTextField,
  slugField,
  textField,
  textParam,
  timeParam,
} from '../../http/schema-fields.js';
import { bodyProjectIdField } from '../../middleware/project-context.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';
import { INVALID_CURSOR_MESSAGE } from './activity.schemas.js';
import { ccEmailsField, ccField, customerIdField, requesterField } from './customers.schemas.js';

export const INVALID_TICKET_ID_MESSAGE = 'Invalid ticket id';

// ---- shared pieces -------------------------------------------------------------------------------

const TAG_TOO_LONG = `Each tag must be at most ${TICKET_LIMITS.tag} characters`;

/** One tag: trimmed, lower-cased, 1..50 characters. */
const tagValue = z
  .string({ error: 'Each tag must be a string' })
  .trim()
  .toLowerCase()
  .min(1, 'Tags cannot be empty')
  .refine((tag) => fitsCodePoints(tag, TICKET_LIMITS.tag), TAG_TOO_LONG)
  .meta({
    description: `A tag: trimmed and lower-cased, 1 to ${TICKET_LIMITS.tag} characters.`,
    example: 'billing',
    maxLength: TICKET_LIMITS.tag,
  });

/** Tags: at most TICKET_LIMITS.tags; duplicates (after trimming and lower-casing) are collapsed. */
export const tagsField = z
  .array(tagValue, { error: 'Tags must be an array of strings' })
  .max(TICKET_LIMITS.tags, `Give at most ${TICKET_LIMITS.tags} tags`)
  .overwrite((tags) => [...new Set(tags)])
  .meta({
    description: `Labels of the ticket (additive). At most ${TICKET_LIMITS.tags}, each trimmed and lower-cased; duplicates collapse.`,
    example: ['billing', 'vip'],
  });

/** A JSON object keyed by the ticket type's field_schema names (checked by the ticket service). */
export const customFieldsField = z
  .record(z.string(), z.unknown(), { error: 'Custom fields must be a JSON object' })
  .meta({
    description: "Values keyed by the ticket type's field_schema names.",
    example: { severity: 'high' },
  });

export const priorityField = enumField('Priority', TICKET_PRIORITIES, {
  description: 'One of low, medium, high, critical.',
  example: 'high',
});

/** assigned_to in writes: a user id, 0 = nobody, null = not given. */
export const assigneeField = integerField('Assignee', {
  min: 0,
  description: 'User id of the assignee; 0 unassigns; null or omitted leaves it as it is.',
  example: 7,
});

export const priorityParam = enumParam(TICKET_PRIORITIES, {
  message: `priority must be one of ${TICKET_PRIORITIES.join(', ')}`,
  description: 'Only tickets of this priority.',
  example: 'high',
});

export const assigneeParam = integerParam({
  min: 1,
  max: MAX_INT32,
  message: 'assignee must be a user id (a positive integer)',
  description: 'Only tickets assigned to this user id.',
  example: 7,
});

// ---- path ----------------------------------------------------------------------------------------

/** Path `{id}` of /tickets/{id}...: 1 to 2147483647, digits only. */
export const ticketIdParams = z.object({
  id: idParam({ message: INVALID_TICKET_ID_MESSAGE, description: 'Ticket id.', example: 42 }),
});

// ---- GET /tickets --------------------------------------------------------------------------------

const SORT_MESSAGE =
  `sort must be one of ${TICKET_SORT_FIELDS.join(', ')}, ` +
  'optionally prefixed with + (ascending) or - (descending)';
// A literal '+' in a query string decodes to a space, so a leading space means ascending too.
const SORT_PATTERN = new RegExp(`^[ +-]?(${TICKET_SORT_FIELDS.join('|')})$`);

/** `sort`, normalised to `+field` or `-field` (a bare field name is ascending). */
export const sortParam = z
  .string({ error: SORT_MESSAGE })
  .regex(SORT_PATTERN, SORT_MESSAGE)
  .overwrite((value) => (value.startsWith('-') ? value : `+${value.replace(/^[ +]/, '')}`))
  .meta({
    description:
      'Sort field with a + (ascending) or - (descending) prefix; a bare field is ascending. ' +
      `Fields: ${TICKET_SORT_FIELDS.join(', ')}. Priority sorts by severity, status by workflow order; ties by id.`,
    example: '-created_at',
  });

const LIST_ASSIGNEE_MESSAGE = 'assignee must be a user id (a positive integer) or none';

/**
 * Longer text is no cursor of the ticket service (its longest, after a title of 200 code points, is
 * about 6,500 characters): refused here, before it travels.
 */
export const MAX_TICKET_CURSOR_LENGTH = 8192;
export const CURSOR_WITH_PAGE_MESSAGE = 'cursor cannot be combined with page: the cursor holds the position';
export const CURSOR_WITH_Q_MESSAGE = 'cursor cannot be combined with q: a search answers every match at once';

/** `cursor`: base64url text from `next_cursor` (or empty for the first page); the service reads it. */
const listCursorParam = z
  .string({ error: INVALID_CURSOR_MESSAGE })
  .max(MAX_TICKET_CURSOR_LENGTH, INVALID_CURSOR_MESSAGE)
  .regex(/^[A-Za-z0-9_-]*$/, INVALID_CURSOR_MESSAGE)
  .meta({
    description:
      'Cursor mode (additive): empty for the first page, then the `next_cursor` of the previous page, with the ' +
      'same sort and filters. Pages by position instead of number: deep pages cost what the first does, and ' +
      'tickets added meanwhile neither repeat nor push others out. Opaque: pass it back as given. Not with `page` or `q`.',
    example: '',
  });

export const listTicketsQuery = z.object({
  ...pageParams('Tickets'),
  cursor: listCursorParam.optional(),
  sort: sortParam.default('-created_at'),
  status: z
    .string({ error: 'status must be a status slug of the project' })
    .min(1, 'status must be a status slug of the project')
    .meta({ description: 'Only tickets in this status (a status slug of the project).', example: 'open' })
    .optional(),
  priority: priorityParam.optional(),
  assignee: z
    .union(
      [
        z.literal('none'),
        integerParam({
          min: 1,
          max: MAX_INT32,
          message: LIST_ASSIGNEE_MESSAGE,
          description: 'Only tickets assigned to this user id.',
          example: 7,
        }),
      ],
      { error: LIST_ASSIGNEE_MESSAGE },
    )
    .meta({
      description:
        'Only tickets assigned to this user id, or with `none` only unassigned tickets (additive).',
      example: 7,
    })
    .optional(),
  created_since: timeParam('created_since', {
    description:
      'Only tickets created at or after this time (additive; with `sort=created_at`, incremental sync).',
    example: '2026-05-02T10:11:00Z',
  }).optional(),
  updated_since: timeParam('updated_since', {
    description:
      'Only tickets changed at or after this time (additive; with `sort=updated_at`, incremental sync).',
    example: '2026-05-02T10:11:00Z',
  }).optional(),
  deleted: z
    .literal('only', { error: 'deleted must be only' })
    .meta({
      description:
        'With `only`, the deleted tickets instead of the live ones, to find one to restore (additive; needs `tickets:delete`).',
      example: 'only',
    })
    .optional(),
  q: textParam({
    max: TICKET_LIMITS.q,
    message: `q must be 1 to ${TICKET_LIMITS.q} characters`,
    description:
      'Case-insensitive search in title and description. When given, all matches are returned and pagination is absent.',
    example: 'printer',
  }).optional(),
  tag: z
    .string({ error: `tag must be 1 to ${TICKET_LIMITS.tag} characters` })
    .trim()
    .toLowerCase()
    .min(1, `tag must be 1 to ${TICKET_LIMITS.tag} characters`)
    .refine(
      (tag) => fitsCodePoints(tag, TICKET_LIMITS.tag),
      `tag must be 1 to ${TICKET_LIMITS.tag} characters`,
    )
    .meta({
      description: 'Only tickets carrying this tag (additive).',
      example: 'billing',
      maxLength: TICKET_LIMITS.tag,
    })
    .optional(),
  customer_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'customer_id must be a customer id (a positive integer)',
    description: 'Only tickets this customer requested or is copied on (additive).',
    example: 5,
  }).optional(),
  requester_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'requester_id must be a customer id (a positive integer)',
    description: 'Only tickets this customer requested (additive).',
    example: 5,
  }).optional(),
});

// ---- POST /tickets -------------------------------------------------------------------------------

const titleField = requiredTextField('Title', {
  max: TICKET_LIMITS.title,
  description: `Title, 1 to ${TICKET_LIMITS.title} characters after trimming.`,
  example: 'Printer on fire',
});

const descriptionField = textField('Description', {
  max: TICKET_LIMITS.description,
  description: `Markdown, at most ${TICKET_LIMITS.description} characters; null means none (on update: clears it).`,
  example: 'It started after the update.',
});

export const REQUESTER_TWICE_MESSAGE = 'Give requester or requester_id, not both';

/** The requester and cc fields of a ticket write (docs/decisions.md, "Customers at the gateway"). */
const peopleFields = {
  requester_id: customerIdField(
    'Requester ID',
    'The customer who asks (additive); null: nobody (on update: clears it). Not with `requester`.',
  ).nullable(),
  requester: requesterField,
  cc: ccField,
  cc_emails: ccEmailsField,
};

/** `requester` and `requester_id` name the same thing: one of them. */
function oneRequester(body: { requester_id?: unknown; requester?: unknown }, context: z.core.$RefinementCtx) {
  if (body.requester !== undefined && body.requester_id !== undefined)
    context.addIssue({ code: 'custom', path: ['requester'], message: REQUESTER_TWICE_MESSAGE });
}

export const createTicketBody = z
  .object(
    {
      ticket_type_id: idField('Ticket type ID', {
        description: 'A ticket type of the project.',
        example: 1,
      }),
      title: titleField,
      description: descriptionField.nullable().optional(),
      priority: priorityField.optional(),
      assigned_to: assigneeField.nullable().optional(),
      custom_fields: customFieldsField.optional(),
      tags: tagsField.nullable().optional(),
      project_id: bodyProjectIdField.optional(),
      requester_id: peopleFields.requester_id.optional(),
      requester: peopleFields.requester.optional(),
      cc: peopleFields.cc.optional(),
      cc_emails: peopleFields.cc_emails.optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .superRefine(oneRequester);

// ---- PUT /tickets/{id} ---------------------------------------------------------------------------

const NOTHING_TO_UPDATE =
  'Give at least one field to change: title, description, status, priority, assigned_to, custom_fields, tags, ' +
  'requester_id, requester, cc or cc_emails';

export const updateTicketBody = z
  .object(
    {
      title: titleField.optional(),
      description: descriptionField.nullable().optional(),
      status: slugField('Status', {
        description: 'A status slug of the project.',
        example: 'waiting',
      }).optional(),
      priority: priorityField.optional(),
      assigned_to: assigneeField.nullable().optional(),
      custom_fields: customFieldsField
        .meta({
          description: 'Values merged into the existing custom fields, then re-validated.',
          example: { severity: 'low' },
        })
        .optional(),
      tags: tagsField.nullable().optional(),
      version: integerField('Version', {
        min: 1,
        description: 'The version you read; a stale version answers 409.',
        example: 3,
      }).optional(),
      requester_id: peopleFields.requester_id.optional(),
      requester: peopleFields.requester.optional(),
      cc: peopleFields.cc
        .meta({
          description: 'Replaces the customers copied on the ticket (with `cc_emails`: by both together).',
          example: [6],
        })
        .optional(),
      cc_emails: peopleFields.cc_emails.optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .superRefine(oneRequester)
  .refine(
    (body) =>
      body.title !== undefined ||
      body.description !== undefined ||
      body.status !== undefined ||
      body.priority !== undefined ||
      (body.assigned_to !== undefined && body.assigned_to !== null) ||
      body.custom_fields !== undefined ||
      (body.tags !== undefined && body.tags !== null) ||
      body.requester_id !== undefined ||
      body.requester !== undefined ||
      body.cc !== undefined ||
      body.cc_emails !== undefined,
    { message: NOTHING_TO_UPDATE },
  );

export type ListTicketsQuery = z.output<typeof listTicketsQuery>;
export type CreateTicketBody = z.output<typeof createTicketBody>;
export type UpdateTicketBody = z.output<typeof updateTicketBody>;
