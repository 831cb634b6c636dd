/**
 * What makes a ticket type valid: name, slug, description and its field_schema (validated by
 * @tix/custom-fields, the one definition of the custom-field language), and what an edit may do
 * (a retired type is never the default). Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseFieldSchema, type FieldSchema } from '@tix/custom-fields';
import { FieldErrors, fieldError, jsonNestingExceeds, jsonTooDeepMessage } from '@tix/kit';
import { TICKET_TYPE_LIMITS } from '@tix/protos';
import { SNAKE_SLUG_PATTERN, SNAKE_SLUG_RULE } from '../shared/slugs.js';
import { checkOptionalText, checkRequiredText } from '../shared/text-rules.js';

export interface NewTicketType {
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  fieldSchema: FieldSchema;
}

/** The request field that carries the schema; custom-fields error paths are reported under it. */
export const FIELD_SCHEMA_FIELD = 'field_schema';

/**
 * Validates a create-ticket-type request and returns it normalised (name trimmed, schema as
 * parseFieldSchema normalised it), or throws 422 listing every problem. Empty schema text means
 * "no custom fields".
 */
export function validateNewTicketType(input: {
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  fieldSchemaJson: string;
}): NewTicketType {
  const errors = new FieldErrors();
  const name = checkRequiredText(errors, 'name', input.name, { label: 'Name', max: TICKET_TYPE_LIMITS.name });
  if (!SNAKE_SLUG_PATTERN.test(input.slug)) errors.add('slug', `Slug ${SNAKE_SLUG_RULE}`);
  const description = checkOptionalText(errors, 'description', input.description, {
    label: 'Description',
    max: TICKET_TYPE_LIMITS.description,
  });
  const fieldSchema = checkFieldSchema(errors, input.fieldSchemaJson);
  errors.throwIfAny();
  return { name, slug: input.slug, description, isDefault: input.isDefault, fieldSchema };
}

// ---- Editing a ticket type ----------------------------------------------------------------------

/** What UpdateTicketType may change; undefined fields stay. The slug never changes (links use it). */
export interface TicketTypeChangeRequest {
  name?: string;
  description?: string;
  isDefault?: boolean;
  /** The field_schema array as JSON text; empty means no custom fields. */
  fieldSchemaJson?: string;
  /** true retires the type, false brings it back. */
  isRetired?: boolean;
}

/** A change request validated and normalised (name trimmed, schema as parseFieldSchema made it). */
export interface TicketTypeChange {
  name?: string;
  description?: string;
  isDefault?: boolean;
  fieldSchema?: FieldSchema;
  isRetired?: boolean;
}

/** The ticket-type fields an edit can change, in the order ticket_type.updated lists them. */
export type ChangedTicketTypeField = 'name' | 'description' | 'is_default' | 'field_schema' | 'retired_at';

export const NOTHING_TO_CHANGE_IN_TICKET_TYPE =
  'Give at least one field to change: name, description, is_default, field_schema or is_retired';
export const RETIRED_CANNOT_BE_DEFAULT = 'A retired ticket type cannot be the default';
export const RETIRE_DEFAULT_FIRST = 'Choose another default type before retiring this one';

/** Validates an update-ticket-type request (the rules of creation), or throws 422 listing every problem. */
export function validateTicketTypeChanges(input: TicketTypeChangeRequest): TicketTypeChange {
  const errors = new FieldErrors();
  if (Object.values(input).every((value) => value === undefined))
    errors.add('body', NOTHING_TO_CHANGE_IN_TICKET_TYPE);
  const change: TicketTypeChange = {};
  if (input.name !== undefined)
    change.name = checkRequiredText(errors, 'name', input.name, {
      label: 'Name',
      max: TICKET_TYPE_LIMITS.name,
    });
  if (input.description !== undefined)
    change.description = checkOptionalText(errors, 'description', input.description, {
      label: 'Description',
      max: TICKET_TYPE_LIMITS.description,
    });
  if (input.fieldSchemaJson !== undefined)
    change.fieldSchema = checkFieldSchema(errors, input.fieldSchemaJson);
  if (input.isDefault !== undefined) change.isDefault = input.isDefault;
  if (input.isRetired !== undefined) change.isRetired = input.isRetired;
  if (change.isDefault === true && change.isRetired === true)
    errors.add('is_default', RETIRED_CANNOT_BE_DEFAULT);
  errors.throwIfAny();
  return change;
}

/** The parts of a ticket type an edit looks at. */
export interface TicketTypeState {
  name: string;
  description: string;
  isDefault: boolean;
  fieldSchema: unknown;
  retiredAt: Date | null;
}

/** True when `change` gives a field_schema other than `before`'s (key order and spacing do not count). */
export function changesFieldSchema(before: TicketTypeState, change: TicketTypeChange): boolean {
  return change.fieldSchema !== undefined && !isDeepStrictEqual(change.fieldSchema, before.fieldSchema ?? []);
}

/** The fields `change` really changes on `before`, in event order. */
export function changedTicketTypeFields(
  before: TicketTypeState,
  change: TicketTypeChange,
): ChangedTicketTypeField[] {
  const changed: ChangedTicketTypeField[] = [];
  if (change.name !== undefined && change.name !== before.name) changed.push('name');
  if (change.description !== undefined && change.description !== before.description)
    changed.push('description');
  if (change.isDefault !== undefined && change.isDefault !== before.isDefault) changed.push('is_default');
  if (changesFieldSchema(before, change)) changed.push('field_schema');
  if (change.isRetired !== undefined && change.isRetired !== (before.retiredAt !== null))
    changed.push('retired_at');
  return changed;
}

/**
 * Refuses (422) an edit that would leave `before` retired and the default: making a retired type
 * the default (on is_default), or retiring the default without handing the flag on (on is_retired;
 * the same request may clear is_default).
 */
export function checkRetiredNotDefault(before: TicketTypeState, change: TicketTypeChange): void {
  if (change.isDefault === undefined && change.isRetired === undefined) return;
  const retired = change.isRetired ?? before.retiredAt !== null;
  const isDefault = change.isDefault ?? before.isDefault;
  if (!retired || !isDefault) return;
  if (change.isDefault === true) throw fieldError('is_default', RETIRED_CANNOT_BE_DEFAULT);
  throw fieldError('is_retired', RETIRE_DEFAULT_FIRST);
}

function checkFieldSchema(errors: FieldErrors, text: string): FieldSchema {
  if (text.trim() === '') return [];
  // The gateway refuses deeper bodies already; this keeps the service safe for any other caller.
  if (jsonNestingExceeds(text)) {
    errors.add(FIELD_SCHEMA_FIELD, jsonTooDeepMessage());
    return [];
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    errors.add(FIELD_SCHEMA_FIELD, `field_schema is not valid JSON: ${(error as Error).message}`);
    return [];
  }
  const result = parseFieldSchema(value);
  if (result.ok) return result.value;
  for (const [path, messages] of Object.entries(result.errors)) {
    for (const message of messages) errors.add(underFieldSchema(path), message);
  }
  return [];
}

/**
 * Reports a custom-fields error path under "field_schema", so a schema entry's `name` can never be
 * mistaken for the ticket type's own `name` ("[0].name" -> "field_schema[0].name").
 */
export function underFieldSchema(path: string): string {
  if (path === '' || path === FIELD_SCHEMA_FIELD) return FIELD_SCHEMA_FIELD;
  if (path.startsWith(`${FIELD_SCHEMA_FIELD}.`) || path.startsWith(`${FIELD_SCHEMA_FIELD}[`)) return path;
  return path.startsWith('[') ? `${FIELD_SCHEMA_FIELD}${path}` : `${FIELD_SCHEMA_FIELD}.${path}`;
}
