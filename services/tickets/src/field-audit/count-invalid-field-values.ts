/**
 * How many tickets of a ticket type hold custom_fields that a candidate field_schema would refuse
 * (the lookup service asks before it saves a schema change). "Refuse" is what the next write of the
 * ticket would do: its stored values validated by @tix/custom-fields exactly as an update validates
 * them (nothing sent, stored values merged, the whole re-checked). So a field removed from the schema
 * breaks nothing (its values are dropped on the next write), a required field added with a default
 * takes the default, and a required field added without one, a narrowed allowed_values or a changed
 * field type breaks the tickets whose values no longer fit. Live and soft-deleted tickets are
 * counted apart (a deleted ticket can be restored). The tickets are read in id-ordered batches, so
 * memory stays bounded by one batch.
 */
import {
  parseFieldSchema,
  validateCustomFields,
  type CustomFieldValues,
  type FieldSchema,
} from '@tix/custom-fields';
import { AppError, FieldErrors, jsonNestingExceeds, jsonTooDeepMessage } from '@tix/kit';
import type { FieldValuesStore } from './field-values-store.js';

/** Tickets read per query. */
export const AUDIT_BATCH_SIZE = 1_000;

export interface CountInvalidFieldValuesInput {
  projectId: number;
  ticketTypeId: number;
  /** The candidate field_schema array as JSON text; empty means no custom fields. */
  fieldSchemaJson: string;
}

export interface InvalidFieldValueCount {
  live: number;
  deleted: number;
}

/** The candidate schema, or 422 on `field_schema` (lookup validated it already; this guards other callers). */
function candidateSchema(json: string): FieldSchema {
  const errors = new FieldErrors();
  if (json.trim() === '') return [];
  if (jsonNestingExceeds(json)) errors.add('field_schema', jsonTooDeepMessage());
  else {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      errors.add('field_schema', 'field_schema is not valid JSON');
    }
    if (value !== undefined) {
      const parsed = parseFieldSchema(value);
      if (parsed.ok) return parsed.value;
      for (const [path, messages] of Object.entries(parsed.errors)) {
        for (const message of messages) errors.add(underFieldSchema(path), message);
      }
    }
  }
  errors.throwIfAny();
  throw AppError.internal('field_schema refused without errors');
}

/** A custom-fields error path under "field_schema" ("[0].name" -> "field_schema[0].name"). */
function underFieldSchema(path: string): string {
  if (path === '' || path === 'field_schema') return 'field_schema';
  if (path.startsWith('field_schema.') || path.startsWith('field_schema[')) return path;
  return path.startsWith('[') ? `field_schema${path}` : `field_schema.${path}`;
}

/** Whether `stored` (a ticket's custom_fields) passes the next write under `schema` (see the header). */
export function storedValuesFit(schema: FieldSchema, stored: unknown): boolean {
  const existing: CustomFieldValues =
    typeof stored === 'object' && stored !== null && !Array.isArray(stored)
      ? (stored as CustomFieldValues)
      : {};
  return validateCustomFields(schema, {}, existing).ok;
}

/** Counts (see the file header); stops between batches when the caller gives up (`signal`). */
export async function countInvalidFieldValues(
  store: FieldValuesStore,
  input: CountInvalidFieldValuesInput,
  signal?: AbortSignal,
): Promise<InvalidFieldValueCount> {
  const schema = candidateSchema(input.fieldSchemaJson);
  const count: InvalidFieldValueCount = { live: 0, deleted: 0 };
  for await (const batch of store.batchesOfType(input.projectId, input.ticketTypeId, AUDIT_BATCH_SIZE)) {
    signal?.throwIfAborted();
    for (const ticket of batch) {
      if (storedValuesFit(schema, ticket.customFields)) continue;
      if (ticket.deleted) count.deleted += 1;
      else count.live += 1;
    }
  }
  return count;
}
