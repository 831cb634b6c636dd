/**
 * The data export's comments (GET /api/me/data-export): every comment the user wrote, of any
 * project, internal notes included, in id order. A deleted comment is gone from the table, so every
 * row is live. Comments on a ticket that is soft-deleted now are included: the user wrote them and
 * the service still holds them (a restore shows them again), see decisions.md. Read by keyset
 * pagination on (user_id, id), one short query per batch and nothing held in between, so a slow or
 * departed caller costs the service nothing.
 */
import type pg from 'pg';
import { ownDataExport, userKeysetBatches, type AsyncHandlers, type Caller } from '@tix/kit';
import type { comment } from '@tix/protos';
import { toCommentMessage, type CommentRow } from '../comments/comment-row.js';

/** Comments read per query. */
export const EXPORT_BATCH_SIZE = 500;

/** The next batch after `afterId`, columns named as CommentRow's properties. */
const NEXT_BATCH = `
  SELECT id, project_id AS "projectId", ticket_id AS "ticketId", user_id AS "userId", content,
         content_html AS "contentHtml", is_internal AS "isInternal", author_type AS "authorType",
         customer_id AS "customerId", source_ref AS "sourceRef", created_at AS "createdAt",
         updated_at AS "updatedAt"
    FROM comments
   WHERE user_id = $1 AND id > $2
   ORDER BY id
   LIMIT $3`;

/** The user's comments in id order, `batchSize` rows per query. */
export function userCommentBatches(
  pool: pg.Pool,
  userId: number,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<CommentRow[]> {
  return userKeysetBatches<CommentRow>(pool, NEXT_BATCH, userId, batchSize);
}

export interface ExportUserCommentsDeps {
  pool: pg.Pool;
  batchSize?: number;
}

/** Every comment of the export as a Comment message; 400/403 before the first read (kit requireOwnDataReader). */
export function exportUserComments(
  deps: ExportUserCommentsDeps,
  userId: number,
  caller: Caller,
): AsyncGenerator<comment.Comment__Output> {
  return ownDataExport(
    caller.principal,
    userId,
    () => userCommentBatches(deps.pool, userId, deps.batchSize),
    toCommentMessage,
  );
}

/** The ExportUserComments RPC (server-streaming; the kit's adapter handles backpressure and cancel). */
export function exportUserCommentsHandler(
  deps: ExportUserCommentsDeps,
): AsyncHandlers<comment.CommentServiceHandlers>['ExportUserComments'] {
  return (request, context) => exportUserComments(deps, request.user_id, context);
}
