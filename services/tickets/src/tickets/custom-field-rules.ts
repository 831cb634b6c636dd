/**
 * A ticket's custom_fields against its type's field_schema (@tix/custom-fields does the checking):
 * on create, defaults fill what was not sent; on update, what was sent is merged over the stored
 * values and the whole is re-validated. Errors are keyed `custom_fields.<name>`.
 */
import { validateCustomFields, type CustomFieldValues, type FieldSchema } from '@tix/custom-fields';
import { jsonNestingExceeds, jsonTooDeepMessage, type FieldErrors } from '@tix/kit';

export const CUSTOM_FIELDS_NOT_OBJECT = 'custom_fields must be an object';

/**
 * Reads the request's custom_fields JSON text: undefined when none was given (empty text), the
 * parsed value otherwise; malformed JSON is recorded as an error.
 */
export function parseCustomFieldsJson(errors: FieldErrors, json: string | undefined): unknown {
  if (json === undefined || json.trim() === '') return undefined;
  // The gateway refuses deeper bodies already; this keeps the service safe for any other caller.
  if (jsonNestingExceeds(json)) {
    errors.add('custom_fields', jsonTooDeepMessage());
    return undefined;
  }
  try {
    return JSON.parse(json) as unknown;
  } catch {
    errors.add('custom_fields', CUSTOM_FIELDS_NOT_OBJECT);
    return undefined;
  }
}

/**
 * The complete custom_fields a ticket stores: `input` validated against `schema` (merged over
 * `existing` on update). Returns undefined and records the errors when it is refused.
 */
export function checkCustomFields(
  errors: FieldErrors,
  schema: FieldSchema,
  input: unknown,
  existing?: CustomFieldValues,
): CustomFieldValues | undefined {
  const result = validateCustomFields(schema, input, existing);
  if (result.ok) return result.value;
  errors.addAll(result.errors);
  return undefined;
}
