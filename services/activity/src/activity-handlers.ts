/** gRPC handlers of the ActivityService: translate messages to reads of the logs and back. */
import type { AsyncHandlers } from '@tix/kit';
import { pageWindow, paginationOf, type activity } from '@tix/protos';
import type { ActivityFilter, FeedStore } from './feed/feed-store.js';
import type { People } from './feed/people.js';
import { presentActivities } from './feed/present.js';
import { pollLog } from './log/poll.js';
import { recordPoll } from './metrics.js';
import type { EventStreamStore } from './stream/event-stream-store.js';

export type ActivityHandlers = AsyncHandlers<activity.ActivityServiceHandlers>;

export interface ActivityHandlerDeps {
  feed: FeedStore;
  stream: EventStreamStore;
  people: People;
}

/** Entries or events per poll: 1 to 100 (0 or absent: 100). */
export const POLL_LIMIT = 100;

const pollLimit = (limit: number) => Math.min(Math.max(limit || POLL_LIMIT, 1), POLL_LIMIT);

/** An optional int64 (a decimal string off the wire) as a number. */
const optionalNumber = (value: string | undefined) => (value === undefined ? undefined : Number(value));

function filterOf(message: activity.ActivityFilter__Output | null): ActivityFilter {
  return {
    projectIds: message?.project_ids ?? [],
    types: message?.types ?? [],
    ...(message?.ticket_id === undefined ? {} : { ticketId: message.ticket_id }),
    ...(message?.actor_id === undefined ? {} : { actorId: message.actor_id }),
    ...(message?.actor_kind === undefined ? {} : { actorKind: message.actor_kind }),
    ...(message?.field === undefined ? {} : { field: message.field }),
    ...(message?.since === undefined ? {} : { since: message.since }),
    ...(message?.until === undefined ? {} : { until: message.until }),
  };
}

export function activityHandlers(deps: ActivityHandlerDeps): ActivityHandlers {
  return {
    async ListActivities(request, context) {
      const window = pageWindow(request.page);
      const snapshot = optionalNumber(request.until_id) ?? (await deps.feed.position()).head;
      const { rows, total } = await deps.feed.list(filterOf(request.filter), snapshot, window);
      return {
        activities: await presentActivities(deps, rows, {
          includeCommentText: request.include_comment_text,
          caller: context,
        }),
        pagination: paginationOf(total, window),
        snapshot_id: snapshot,
      };
    },

    async PollActivities(request, context) {
      recordPoll('activities');
      const filter = filterOf(request.filter);
      const polled = await pollLog({
        position: await deps.feed.position(),
        after: optionalNumber(request.after_id),
        limit: pollLimit(request.limit),
        read: (after, head, limit) => deps.feed.after(filter, after, head, limit),
        numberOf: (row) => Number(row.id),
      });
      return {
        activities: await presentActivities(deps, polled.rows, {
          includeCommentText: request.include_comment_text,
          caller: context,
        }),
        cursor_id: polled.cursor,
        has_more: polled.hasMore,
        expired: polled.expired,
      };
    },

    async ListTicketHistory(request, context) {
      const window = pageWindow(request.page);
      const { rows, total } = await deps.feed.history(request.project_id, request.ticket_id, window);
      return {
        activities: await presentActivities(deps, rows, {
          includeCommentText: request.include_comment_text,
          caller: context,
        }),
        pagination: paginationOf(total, window),
        snapshot_id: 0,
      };
    },

    async ListEvents(request) {
      recordPoll('events');
      const polled = await pollLog({
        position: await deps.stream.position(),
        after: optionalNumber(request.after_id),
        limit: pollLimit(request.limit),
        read: (after, head, limit) =>
          deps.stream.after({
            projectId: request.project_id,
            after,
            head,
            limit,
            types: request.types,
            includeComments: request.include_comments,
          }),
        numberOf: (row) => Number(row.sequence),
      });
      return {
        events: polled.rows.map((row) => ({
          sequence: row.sequence,
          id: row.event_id,
          type: row.type,
          body_json: row.body,
        })),
        cursor_id: polled.cursor,
        has_more: polled.hasMore,
        expired: polled.expired,
      };
    },
  };
}
