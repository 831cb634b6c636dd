/**
 * The request schemas of the activity routes (docs/activity.md): the feed's filters, its pages and
 * polls, a ticket's history, and the event stream. The gateway checks shapes; which event types,
 * fields and actors exist is the activity service's to know (an unknown one matches nothing).
 */
import { z } from 'zod';
import { MAX_INT32, type EventActor } from '@tix/protos';
import { enumParam, type FieldDoc, integerParam, pageParams, timeParam } from '../../http/schema-fields.js';
import { decodeCursor, type CursorKind } from '../../resources/activity-cursor.js';

type ActorKind = EventActor['kind'];

/** Who can make a change (events v1.1). */
export const ACTOR_KINDS = ['user', 'api_key', 'ai', 'system'] as const satisfies readonly ActorKind[];
export const INVALID_CURSOR_MESSAGE = 'Invalid cursor';
/** More types than this in one filter is not a filter any more. */
export const MAX_FILTER_TYPES = 20;
export const POLL_LIMITS = { max: 100, default: 100 } as const;

// ---- pieces ---------------------------------------------------------------------------------------

/** An event type (`ticket.updated`) or every type of a resource (`ticket.*`). */
const TYPE_PATTERN = /^[a-z][a-z_]*\.([a-z][a-z_]*|\*)$/;
const LONGEST_TYPE = 64;

/** A comma list of types and prefixes, deduplicated. */
function typesParam(name: string, doc: FieldDoc) {
  const message = `${name} must be a comma list of at most ${MAX_FILTER_TYPES} event types (ticket.updated) or prefixes (ticket.*)`;
  return z
    .string({ error: message })
    .max(MAX_FILTER_TYPES * (LONGEST_TYPE + 1), message)
    .transform((value) => [...new Set(value.split(',').map((type) => type.trim()))])
    .refine(
      (types) =>
        types.length <= MAX_FILTER_TYPES &&
        types.every((type) => type.length <= LONGEST_TYPE && TYPE_PATTERN.test(type)),
      message,
    )
    .meta({ ...doc });
}

/** A cursor of `kind` from an earlier answer, as the position it stands for. */
function cursorParam(kind: CursorKind, doc: FieldDoc) {
  return z
    .string({ error: INVALID_CURSOR_MESSAGE })
    .transform((text, context) => {
      const position = decodeCursor(kind, text);
      if (position === undefined) {
        context.addIssue({ code: 'custom', message: INVALID_CURSOR_MESSAGE });
        return z.NEVER;
      }
      return position;
    })
    .meta({ ...doc });
}

const pollLimitParam = integerParam({
  min: 1,
  max: POLL_LIMITS.max,
  message: `limit must be an integer from 1 to ${POLL_LIMITS.max}`,
  description: `At most this many, 1 to ${POLL_LIMITS.max}; \`has_more\` says whether more are waiting.`,
  example: 100,
}).default(POLL_LIMITS.default);

const pageFields = pageParams('Entries');

/** A field name (`status`), or a guardrail setting's dotted path (`actions.set_priority.mode`). */
const FIELD_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const LONGEST_FIELD = 100;
const FIELD_MESSAGE =
  'field must be a field name such as status, or a dotted path such as actions.assign.mode';

// ---- the feed's filters ---------------------------------------------------------------------------

const filterFields = {
  ticket_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'ticket_id must be a ticket id (a positive integer)',
    description: "Only this ticket's entries.",
    example: 42,
  }).optional(),
  actor_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'actor_id must be a user id (a positive integer)',
    description: 'Only changes made by this user (in person, with their API key, or on their behalf).',
    example: 7,
  }).optional(),
  actor_kind: enumParam(ACTOR_KINDS, {
    message: `actor_kind must be one of ${ACTOR_KINDS.join(', ')}`,
    description:
      'Only changes made this way: `user` (a signed-in person), `api_key`, `ai` (the assistant) or `system`.',
    example: 'user',
  }).optional(),
  type: typesParam('type', {
    description:
      'Only entries of these types, a comma list: exact (`ticket.updated`) or every type of a resource (`ticket.*`).',
    example: 'ticket.updated,comment.*',
  }).optional(),
  field: z
    .string({ error: FIELD_MESSAGE })
    .max(LONGEST_FIELD, FIELD_MESSAGE)
    .regex(FIELD_PATTERN, FIELD_MESSAGE)
    .meta({
      description:
        'Only entries that changed this field (`status`, `priority`, `assigned_to`, `custom_fields`, ...), ' +
        "or this setting of the assistant's guardrails by dotted path (`actions.set_priority.threshold`).",
      example: 'status',
    })
    .optional(),
  since: timeParam('since', {
    description: 'Only entries at or after this time (ISO 8601; a date means its midnight UTC).',
    example: '2026-05-01T00:00:00Z',
  }).optional(),
  until: timeParam('until', {
    description: 'Only entries before this time (ISO 8601; a date means its midnight UTC).',
    example: '2026-06-01T00:00:00Z',
  }).optional(),
};

/** A time range must be one: `until` after `since`. */
function checkTimeRange(query: { since?: string; until?: string }, context: z.core.$RefinementCtx): void {
  if (query.since !== undefined && query.until !== undefined && query.until <= query.since) {
    context.addIssue({ code: 'custom', path: ['until'], message: 'until must be later than since' });
  }
}

// ---- the routes -----------------------------------------------------------------------------------

/** GET /activity: a page of the feed, newest first, below a snapshot. */
export const listActivityQuery = z
  .object({
    ...filterFields,
    ...pageFields,
    until_id: integerParam({
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      message: 'until_id must be the snapshot_id of an earlier page (a positive integer)',
      description:
        "Only entries up to this id: pass the first page's `snapshot_id` on later pages, so new entries do not shift them.",
      example: 90211,
    }).optional(),
  })
  .superRefine(checkTimeRange);

/** GET /activity/new: what the feed gained after a cursor, oldest first. */
export const pollActivityQuery = z
  .object({
    ...filterFields,
    cursor: cursorParam('activity', {
      description:
        'The `cursor` of the previous answer (or of GET /activity); absent: from now. Opaque: pass it back as given.',
      example: 'eyJzIjo5MDIxMX0',
    }).optional(),
    limit: pollLimitParam,
  })
  .superRefine(checkTimeRange);

/** GET /tickets/{id}/history. */
export const ticketHistoryQuery = z.object(pageFields);

/** GET /events: the project's domain events after a cursor, in commit order. */
export const listEventsQuery = z.object({
  after: cursorParam('events', {
    description: 'The `cursor` of the previous answer; absent: from now. Opaque: pass it back as given.',
    example: 'eyJlIjo1MTIwfQ',
  }).optional(),
  limit: pollLimitParam,
  types: typesParam('types', {
    description:
      'Only events of these types, a comma list: exact (`ticket.status_changed`) or every type of a resource (`comment.*`).',
    example: 'ticket.*',
  }).optional(),
});

export type ListActivityQuery = z.output<typeof listActivityQuery>;
export type PollActivityQuery = z.output<typeof pollActivityQuery>;
/** The filters both feed routes share. */
export type ActivityFilterQuery = Pick<ListActivityQuery, keyof typeof filterFields>;
