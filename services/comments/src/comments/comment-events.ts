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
 */
import { newDomainEvent } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { presentComment, type CommentJson } from '@tix/protos';
import { toCommentMessage, type CommentRow } from './comment-row.js';

export const EVENT_SOURCE = 'comments';

/** The comment exactly as the public API returns it. */
export function toCommentJson(row: CommentRow): CommentJson {
  return presentComment(toCommentMessage(row));
}

/** comment.created for a new comment. */
export function commentCreated(row: CommentRow): DomainEvent<CommentJson> {
  return newDomainEvent('comment.created', toCommentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.createdAt,
  });
}

/** comment.updated for a comment after a change. */
export function commentUpdated(row: CommentRow): DomainEvent<CommentJson> {
  return newDomainEvent('comment.updated', toCommentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.updatedAt,
  });
}

/** comment.deleted carrying the comment as it was. */
export function commentDeleted(row: CommentRow, deletedAt: Date): DomainEvent<CommentJson> {
  return newDomainEvent('comment.deleted', toCommentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: deletedAt,
  });
}
