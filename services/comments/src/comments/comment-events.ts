/**
 * The domain events of comments, written to the outbox in the same statement or transaction as the
 * change:
 *
 * | change  | event           | data                              | occurred_at          |
 * |---------|-----------------|-----------------------------------|----------------------|
 * | create  | comment.created | the comment as created            | created_at           |
 * | update  | comment.updated | the comment after the change      | the new updated_at   |
 * | delete  | comment.deleted | the comment as it was when deleted| the time of deletion |
 *
 * `data` is the comment exactly as the API returns it (presentComment), `project_id` the ticket's
 * project, `source` 'comments'. An update that changes nothing writes no event.
 *
 * Envelope v1.1: every event carries the call's `actor`; comment.updated's `changes` names what the
 * edit altered (content, content_html, is_internal), created and deleted carry `{}`.
 */
import { fieldChanges, newDomainEvent } from '@tix/kit';
import type { DomainEvent, EventActor } from '@tix/protos';
import { presentComment, type CommentJson } from '@tix/protos';
import { toCommentMessage, type CommentRow } from './comment-row.js';

export const EVENT_SOURCE = 'comments';

/** The comment exactly as the public API returns it. */
export function toCommentJson(row: CommentRow): CommentJson {
  return presentComment(toCommentMessage(row));
}

/** comment.created for a new comment. */
export function commentCreated(row: CommentRow, actor: EventActor): DomainEvent<CommentJson> {
  return newDomainEvent('comment.created', toCommentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.createdAt,
    actor,
    changes: {},
  });
}

/** The public fields an edit may change. */
const CHANGE_FIELDS = ['content', 'content_html', 'is_internal'] as const;

/** comment.updated for a comment after a change. */
export function commentUpdated(
  row: CommentRow,
  before: CommentRow,
  actor: EventActor,
): DomainEvent<CommentJson> {
  const data = toCommentJson(row);
  return newDomainEvent('comment.updated', data, {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.updatedAt,
    actor,
    changes: fieldChanges(toCommentJson(before), data, CHANGE_FIELDS),
  });
}

/** comment.deleted carrying the comment as it was. */
export function commentDeleted(
  row: CommentRow,
  deletedAt: Date,
  actor: EventActor,
): DomainEvent<CommentJson> {
  return newDomainEvent('comment.deleted', toCommentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: deletedAt,
    actor,
    changes: {},
  });
}
