/** Validating a ticket's custom_fields against its type's field_schema, on create and on update. */
import { checkFieldValue } from './value-rules.js';
import {
  type CustomFieldValues,
  type FieldErrors,
  type FieldSchema,
  isPlainObject,
  type Result,
} from './types.js';

/**
 * Validates `input` (a ticket's custom_fields) against `schema` and returns the complete object the
 * ticket stores, or every error at once keyed `custom_fields.<name>` (`custom_fields` when `input`
 * is not an object).
 * - Create (no `existing`): a field not sent takes its `default_value`; `null` means "no value".
 * - Update: `input` is merged over `existing` (sent keys win, `null` clears an optional field) and
 *   the merged whole is validated. A required field missing from both takes its default when it has
 *   one (it was added to the schema later); an optional one is not defaulted, because a missing
 *   optional value may have been cleared on purpose. Stored values of fields no longer in the schema
 *   are dropped.
 * A required field left without a value gives "<label> is required".
 */
export function validateCustomFields(
  schema: FieldSchema,
  input: unknown,
  existing?: CustomFieldValues,
): Result<CustomFieldValues> {
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    return { ok: false, errors: { custom_fields: ['custom_fields must be an object'] } };
  }
  const sent: Record<string, unknown> = input ?? {};
  const errors: FieldErrors = {};
  const known = new Set(schema.map((field) => field.name));
  for (const [key, value] of Object.entries(sent)) {
    if (!known.has(key) && value !== undefined) errors[`custom_fields.${key}`] = ['Unknown field'];
  }

  const isUpdate = existing !== undefined;
  const values: CustomFieldValues = {};
  for (const field of schema) {
    // A key holding undefined (possible from JS callers, never from JSON) counts as not sent.
    let value = Object.hasOwn(sent, field.name) ? sent[field.name] : undefined;
    if (value === undefined && isUpdate && Object.hasOwn(existing, field.name)) value = existing[field.name];
    if (value === undefined && (!isUpdate || field.required)) value = field.default_value;
    if (value === undefined || value === null) {
      if (field.required) errors[`custom_fields.${field.name}`] = [`${field.label} is required`];
      continue;
    }
    const check = checkFieldValue(field, value);
    if (check.ok) values[field.name] = check.value;
    else errors[`custom_fields.${field.name}`] = check.messages;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: values };
}
