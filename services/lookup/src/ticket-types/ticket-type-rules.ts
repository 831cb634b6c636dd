/**
 * What makes a ticket type valid: name, slug, description and its field_schema (validated by
 * @tix/custom-fields, the one definition of the custom-field language). Pure.
 */
import { parseFieldSchema, type FieldSchema } from '@tix/custom-fields';
import { FieldErrors, jsonNestingExceeds, jsonTooDeepMessage } from '@tix/kit';
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
