/**
 * The data export's attachments (GET /api/me/data-export): the metadata of every live (not deleted)
 * attachment the user uploaded, of any project, in id order; never the bytes (each is downloadable
 * on its own). Attachments of a ticket that is soft-deleted now are included, like comments (see
 * decisions.md). Read by keyset pagination on (created_by, id), one short query per batch and
 * nothing held in between, so a slow or departed caller costs the service nothing.
 */
import type pg from 'pg';
import { ownDataExport, userKeysetBatches, type AsyncHandlers, type Caller } from '@tix/kit';
import type { attachment } from '@tix/protos';
import { toAttachmentMessage, type AttachmentRow } from '../attachments/attachment-row.js';

/** Attachments read per query. */
export const EXPORT_BATCH_SIZE = 500;

/** The next batch after `afterId`, columns named as AttachmentRow's properties. */
const NEXT_BATCH = `
  SELECT id, project_id AS "projectId", ticket_id AS "ticketId", object_key AS "objectKey",
         original_filename AS "originalFilename", mime_type AS "mimeType", size_bytes AS "sizeBytes",
         sha256, created_by AS "createdBy", created_at AS "createdAt", deleted_at AS "deletedAt"
    FROM attachments
   WHERE created_by = $1 AND deleted_at IS NULL AND id > $2
   ORDER BY id
   LIMIT $3`;

/** The user's live attachments in id order, `batchSize` rows per query. */
export function userAttachmentBatches(
  pool: pg.Pool,
  userId: number,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<AttachmentRow[]> {
  return userKeysetBatches<AttachmentRow>(pool, NEXT_BATCH, userId, batchSize);
}

export interface ExportUserAttachmentsDeps {
  pool: pg.Pool;
  batchSize?: number;
}

/** Every attachment of the export as an Attachment message; 400/403 before the first read (kit requireOwnDataReader). */
export function exportUserAttachments(
  deps: ExportUserAttachmentsDeps,
  userId: number,
  caller: Caller,
): AsyncGenerator<attachment.Attachment__Output> {
  return ownDataExport(
    caller.principal,
    userId,
    () => userAttachmentBatches(deps.pool, userId, deps.batchSize),
    toAttachmentMessage,
  );
}

/** The ExportUserAttachments RPC (server-streaming; the kit's adapter handles backpressure and cancel). */
export function exportUserAttachmentsHandler(
  deps: ExportUserAttachmentsDeps,
): AsyncHandlers<attachment.AttachmentServiceHandlers>['ExportUserAttachments'] {
  return (request, context) => exportUserAttachments(deps, request.user_id, context);
}
