/**
 * Reading the custom_fields of every ticket of one ticket type (SQL only; no rules), for auditing
 * them against a candidate field_schema. Keyset pagination by id: each batch is one short query
 * that starts after the last id seen, so no cursor or snapshot is held open between batches and
 * memory stays bounded by one batch whatever the number of tickets.
 */
import type pg from 'pg';
import { keysetBatches } from '@tix/kit';
import { prepared } from '../db.js';

export interface StoredFieldValues {
  id: number;
  customFields: unknown;
  deleted: boolean;
}

export interface FieldValuesStore {
  /** Every ticket of the type in the project, live and soft-deleted, in id order, `batchSize` at a time. */
  batchesOfType(
    projectId: number,
    ticketTypeId: number,
    batchSize: number,
  ): AsyncIterable<StoredFieldValues[]>;
}

const BATCH = `
  SELECT id, custom_fields AS "customFields", deleted_at IS NOT NULL AS deleted
    FROM tickets
   WHERE project_id = $1 AND ticket_type_id = $2 AND id > $3
   ORDER BY id
   LIMIT $4`;

/** The SQL-backed store. */
export function createFieldValuesStore(pool: pg.Pool): FieldValuesStore {
  return {
    batchesOfType(projectId, ticketTypeId, batchSize) {
      return keysetBatches(
        async (afterId, limit) =>
          (await pool.query<StoredFieldValues>(prepared(BATCH, [projectId, ticketTypeId, afterId, limit])))
            .rows,
        batchSize,
      );
    },
  };
}
