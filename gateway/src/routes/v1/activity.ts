/**
 * Who did what, when (docs/activity.md): the activity feed on the session host (a page
 * below a snapshot, and a poll for what came after), a ticket's history on both hosts, and the event
 * stream integrators catch up from on the API host. Each is validated by activity.schemas.ts, then
 * one ActivityService call, then resources/presenters/activity.ts. Comment text (excerpts,
 * comment.* events) reaches only callers who may read comments.
 */
import { givenFields } from '../../http/validate.js';
import { POLL_INTERVAL_SECONDS, pollEtag, cursorExpiredAnswer, polledAnswer } from '../../http/polling.js';
import { activitySchema, paginationSchema, streamedEventSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { json, polled } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import {
  presentActivity,
  presentActivityPage,
  presentStreamedEvent,
} from '../../resources/presenters/activity.js';
import { int64Number } from '../../services.js';
import { defineOperation, type Answer, type Operation } from '../operation.js';
import { encodeCursor, type CursorKind } from '../../resources/activity-cursor.js';
import { activityFilter, mayReadComments } from './activity.mapping.js';
import {
  listActivityQuery,
  listEventsQuery,
  pollActivityQuery,
  ticketHistoryQuery,
} from './activity.schemas.js';
import { ticketIdParams } from './tickets.schemas.js';

export const ACTIVITY_CURSOR_EXPIRED_MESSAGE = 'Cursor expired; reload /activity';
export const EVENTS_CURSOR_EXPIRED_MESSAGE = 'Cursor expired; start again without after';

const POLLS = {
  activity: { etagPrefix: 'a', expired: ACTIVITY_CURSOR_EXPIRED_MESSAGE },
  events: { etagPrefix: 'e', expired: EVENTS_CURSOR_EXPIRED_MESSAGE },
} as const;

/**
 * The answer of both polls: 410 when retention passed the cursor, else the items with the next
 * cursor, under the polling conventions (ETag of the position, 304, X-Poll-Interval).
 */
function answerPoll(
  kind: CursorKind,
  batch: { cursor_id: string; has_more: boolean; expired: boolean },
  items: Record<string, unknown[]>,
): Answer {
  if (batch.expired) return cursorExpiredAnswer(POLLS[kind].expired);
  const position = int64Number(batch.cursor_id, 'activity');
  return polledAnswer(pollEtag(POLLS[kind].etagPrefix, position), {
    ...items,
    cursor: encodeCursor(kind, position),
    has_more: batch.has_more,
    poll_interval_seconds: POLL_INTERVAL_SECONDS,
  });
}

const cursorField = (description: string) => z.string().meta({ description });
const hasMoreField = z.boolean().meta({ description: 'True when more are waiting: poll again at once.' });
const pollIntervalField = z
  .number()
  .int()
  .meta({ description: 'Seconds to wait before the next poll (as `X-Poll-Interval`).' });

/**
 * A poll's 200: `{ <key>: [...], cursor, has_more, poll_interval_seconds }`; `next` says which
 * parameter takes the cursor, the example holds one item.
 */
function pollSuccess(
  description: string,
  key: string,
  item: z.ZodType,
  example: { next: string; item: unknown; cursor: string },
) {
  return polled(
    description,
    z.object({
      [key]: z.array(item),
      cursor: cursorField(example.next),
      has_more: hasMoreField,
      poll_interval_seconds: pollIntervalField,
    }),
    {
      [key]: [example.item],
      cursor: example.cursor,
      has_more: false,
      poll_interval_seconds: POLL_INTERVAL_SECONDS,
    },
  );
}

export const ACTIVITY_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/activity',
    hosts: ['app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'optional',
    request: { query: listActivityQuery },
    operationId: 'listActivity',
    tag: 'Activity',
    summary: 'The activity feed',
    success: json(
      200,
      'A page of entries, newest first.',
      z.object({
        activities: z.array(activitySchema),
        pagination: paginationSchema,
        snapshot_id: z
          .number()
          .int()
          .meta({ description: 'The highest entry id the pages can include: pass as `until_id`.' }),
        cursor: cursorField('Where GET /activity/new continues from: right after this snapshot.'),
      }),
      {
        activities: [EXAMPLES.commentActivity, EXAMPLES.activity],
        pagination: EXAMPLES.pagination,
        snapshot_id: 90212,
        cursor: encodeCursor('activity', 90212),
      },
    ),
    errors: [400],
    async handle({ query, services, project, principal, call }) {
      const page = await services.activity.ListActivities(
        {
          filter: activityFilter(project?.id, query),
          page: { page: query.page, per_page: query.per_page },
          ...givenFields(query, 'until_id'),
          include_comment_text: mayReadComments(principal),
        },
        call,
      );
      const snapshot = int64Number(page.snapshot_id, 'activity');
      return {
        data: {
          ...presentActivityPage(page),
          snapshot_id: snapshot,
          cursor: encodeCursor('activity', snapshot),
        },
      };
    },
  }),

  defineOperation({
    method: 'get',
    path: '/activity/new',
    hosts: ['app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'optional',
    request: { query: pollActivityQuery },
    operationId: 'pollActivity',
    tag: 'Activity',
    summary: 'Poll the activity feed for new entries',
    success: pollSuccess('The new entries, oldest first.', 'activities', activitySchema, {
      next: 'Pass as `cursor` on the next poll.',
      item: EXAMPLES.activity,
      cursor: EXAMPLES.activityCursor,
    }),
    errors: [400, 410],
    async handle({ query, services, project, principal, call }) {
      const batch = await services.activity.PollActivities(
        {
          filter: activityFilter(project?.id, query),
          ...(query.cursor === undefined ? {} : { after_id: query.cursor }),
          limit: query.limit,
          include_comment_text: mayReadComments(principal),
        },
        call,
      );
      return answerPoll('activity', batch, { activities: batch.activities.map(presentActivity) });
    },
  }),

  defineOperation({
    method: 'get',
    path: '/tickets/:id/history',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { params: ticketIdParams, query: ticketHistoryQuery },
    operationId: 'getTicketHistory',
    tag: 'Activity',
    summary: "A ticket's history",
    success: json(
      200,
      'A page of entries, oldest first.',
      z.object({
        activities: z.array(activitySchema),
        pagination: paginationSchema,
        ticket_id: z.number().int().meta({ description: 'The ticket.' }),
      }),
      {
        activities: [EXAMPLES.activity, EXAMPLES.commentActivity],
        pagination: EXAMPLES.pagination,
        ticket_id: 42,
      },
    ),
    errors: [400, 404],
    async handle({ params, query, services, project, principal, call }) {
      const context = call;
      // The log outlives deleted tickets; the API answers them 404, as every other read of a ticket.
      await services.tickets.GetTicket({ project_id: project.id, id: params.id }, context);
      const page = await services.activity.ListTicketHistory(
        {
          project_id: project.id,
          ticket_id: params.id,
          page: { page: query.page, per_page: query.per_page },
          include_comment_text: mayReadComments(principal),
        },
        context,
      );
      return { data: { ...presentActivityPage(page), ticket_id: params.id } };
    },
  }),

  defineOperation({
    method: 'get',
    path: '/events',
    hosts: ['api'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { query: listEventsQuery },
    operationId: 'listEvents',
    tag: 'Activity',
    summary: 'The event stream, to catch up from',
    success: pollSuccess('The events after the cursor, oldest first.', 'events', streamedEventSchema, {
      next: 'Pass as `after` on the next poll.',
      item: EXAMPLES.streamedEvent,
      cursor: EXAMPLES.eventCursor,
    }),
    errors: [400, 410],
    async handle({ query, services, project, principal, call }) {
      const batch = await services.activity.ListEvents(
        {
          project_id: project.id,
          ...(query.after === undefined ? {} : { after_id: query.after }),
          limit: query.limit,
          types: query.types ?? [],
          include_comments: mayReadComments(principal),
        },
        call,
      );
      return answerPoll('events', batch, { events: batch.events.map(presentStreamedEvent) });
    },
  }),
];
