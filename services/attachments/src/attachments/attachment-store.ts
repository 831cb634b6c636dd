/**
 * The only module that touches the attachment tables. A write and its outbox events share one
 * transaction, so an event exists exactly when its change does.
 */
import type pg from 'pg';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import type { AttachmentRow } from './attachment-row.js';

const COLUMNS = `id, project_id, ticket_id, object_key, original_filename, mime_type, size_bytes, sha256,
  created_by, created_at, deleted_at`;

interface DbRow {
  id: number;
  project_id: number;
  ticket_id: number;
  object_key: string;
  original_filename: string;
  mime_type: string;
  size_bytes: number;
  sha256: string;
  created_by: number;
  created_at: Date;
  deleted_at: Date | null;
}

function fromDb(row: DbRow): AttachmentRow {
  return {
    id: row.id,
    projectId: row.project_id,
    ticketId: row.ticket_id,
    objectKey: row.object_key,
    originalFilename: row.original_filename,
    mimeType: row.mime_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    createdBy: row.created_by,
    createdAt: row.created_at,
    deletedAt: row.deleted_at,
  };
}

/** What an upload records. */
export interface NewAttachment {
  projectId: number;
  ticketId: number;
  objectKey: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  createdBy: number;
}

/** A deleted attachment whose object may still be in the store. */
export interface PendingRemoval {
  id: number;
  objectKey: string;
}

export interface AttachmentStore {
  /** Inserts the row and the events made from it, in one transaction. */
  insert(
    attachment: NewAttachment,
    events: (row: AttachmentRow) => DomainEvent<object>[],
  ): Promise<AttachmentRow>;
  /** The live (not deleted) attachment `id` of the project, or null. */
  findLive(projectId: number, id: number): Promise<AttachmentRow | null>;
  /** The live attachments of a ticket of the project, oldest first. */
  listLive(projectId: number, ticketId: number): Promise<AttachmentRow[]>;
  /**
   * Marks the live attachment deleted and writes the events made from it, in one transaction; null
   * when it was not live (already deleted by someone else meanwhile).
   */
  markDeleted(
    projectId: number,
    id: number,
    deletedBy: number,
    events: (row: AttachmentRow) => DomainEvent<object>[],
  ): Promise<AttachmentRow | null>;
  /** Records that the object of a deleted attachment is gone from the store. */
  markObjectRemoved(id: number): Promise<void>;
  /** Deleted attachments whose object removal is not confirmed yet, oldest first. */
  pendingRemovals(limit: number): Promise<PendingRemoval[]>;
}

/** The store over `pool`. */
export function createAttachmentStore(pool: pg.Pool): AttachmentStore {
  return {
    insert(attachment, events) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<DbRow>(
          `INSERT INTO attachments (project_id, ticket_id, object_key, original_filename, mime_type,
             size_bytes, sha256, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           RETURNING ${COLUMNS}`,
          [
            attachment.projectId,
            attachment.ticketId,
            attachment.objectKey,
            attachment.originalFilename,
            attachment.mimeType,
            attachment.sizeBytes,
            attachment.sha256,
            attachment.createdBy,
          ],
        );
        const row = fromDb(rows[0]!);
        await client.query(outboxInsert(events(row)));
        return row;
      });
    },

    async findLive(projectId, id) {
      const { rows } = await pool.query<DbRow>(
        `SELECT ${COLUMNS} FROM attachments WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
        [id, projectId],
      );
      return rows[0] ? fromDb(rows[0]) : null;
    },

    async listLive(projectId, ticketId) {
      const { rows } = await pool.query<DbRow>(
        `SELECT ${COLUMNS} FROM attachments
          WHERE project_id = $1 AND ticket_id = $2 AND deleted_at IS NULL
          ORDER BY id`,
        [projectId, ticketId],
      );
      return rows.map(fromDb);
    },

    markDeleted(projectId, id, deletedBy, events) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<DbRow>(
          `UPDATE attachments SET deleted_at = now(), deleted_by = $3
            WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL
            RETURNING ${COLUMNS}`,
          [id, projectId, deletedBy],
        );
        if (!rows[0]) return null;
        const row = fromDb(rows[0]);
        await client.query(outboxInsert(events(row)));
        return row;
      });
    },

    async markObjectRemoved(id) {
      await pool.query(
        'UPDATE attachments SET object_removed_at = now() WHERE id = $1 AND deleted_at IS NOT NULL',
        [id],
      );
    },

    async pendingRemovals(limit) {
      const { rows } = await pool.query<{ id: number; object_key: string }>(
        `SELECT id, object_key FROM attachments
          WHERE deleted_at IS NOT NULL AND object_removed_at IS NULL
          ORDER BY id LIMIT $1`,
        [limit],
      );
      return rows.map((row) => ({ id: row.id, objectKey: row.object_key }));
    },
  };
}
