/** Validating a ticket type's field_schema when it is saved (spec: "Ticket type"). */
import { parseConstraints } from './field-constraints.js';
import { codePointLength, CUSTOM_FIELD_TYPES } from '@tix/contract';
import { hasUnstorableCharacters } from './formats.js';
import {
  type FieldDefinition,
  type FieldErrors,
  type FieldSchema,
  type FieldType,
  isPlainObject,
  LIMITS,
  type Result,
} from './types.js';
import { checkFieldValue } from './value-rules.js';

const ENTRY_KEYS = new Set(['name', 'label', 'type', 'required', 'constraints', 'default_value', 'order']);
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Validates a field_schema as saved on a ticket type; returns it normalised (input order kept;
 * `required` false, `constraints` {}, `default_value` null and `order` = position filled in when
 * absent), or every error at once keyed by path: `field_schema`, `field_schema[2].name`,
 * `field_schema[0].constraints.allowed_values`, ...
 */
export function parseFieldSchema(input: unknown): Result<FieldSchema> {
  if (!Array.isArray(input))
    return { ok: false, errors: { field_schema: ['field_schema must be an array'] } };
  if (input.length > LIMITS.maxFields) {
    return {
      ok: false,
      errors: { field_schema: [`field_schema must have at most ${LIMITS.maxFields} fields`] },
    };
  }
  const errors: FieldErrors = {};
  const fields: FieldDefinition[] = [];
  const names = new Set<string>();
  input.forEach((entry: unknown, index) => {
    const path = `field_schema[${index}]`;
    const field = parseEntry(entry, index, path, errors);
    const name = isPlainObject(entry) ? entry.name : undefined;
    if (typeof name === 'string' && FIELD_NAME.test(name)) {
      if (names.has(name)) errors[`${path}.name`] = [`name "${name}" is already used by another field`];
      names.add(name);
    }
    if (field) fields.push(field);
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: fields };
}

/** One entry; records its errors and returns null when it has any. */
function parseEntry(
  entry: unknown,
  index: number,
  path: string,
  errors: FieldErrors,
): FieldDefinition | null {
  if (!isPlainObject(entry)) {
    errors[path] = ['field must be an object'];
    return null;
  }
  const before = Object.keys(errors).length;
  const refuse = (key: string, message: string): void => {
    errors[`${path}.${key}`] = [message];
  };
  for (const key of Object.keys(entry)) if (!ENTRY_KEYS.has(key)) refuse(key, 'Unknown property');

  const name = entry.name;
  if (name === undefined) refuse('name', 'name is required');
  else if (typeof name !== 'string') refuse('name', 'name must be a string');
  else if (!FIELD_NAME.test(name)) {
    refuse(
      'name',
      'name must start with a lowercase letter and contain only lowercase letters, digits and underscores (at most 64 characters)',
    );
  }

  const label = entry.label;
  const labelProblem = labelProblemOf(label);
  if (labelProblem) refuse('label', labelProblem);

  const type = entry.type;
  const knownType = CUSTOM_FIELD_TYPES.includes(type as FieldType);
  if (type === undefined) refuse('type', 'type is required');
  else if (!knownType) refuse('type', `type must be one of: ${CUSTOM_FIELD_TYPES.join(', ')}`);

  const required = entry.required ?? false;
  if (typeof required !== 'boolean') refuse('required', 'required must be true or false');

  const order = entry.order ?? index;
  if (typeof order !== 'number' || !Number.isInteger(order)) refuse('order', 'order must be an integer');
  else if (order < LIMITS.minOrder || order > LIMITS.maxOrder) {
    refuse('order', `order must be between ${LIMITS.minOrder} and ${LIMITS.maxOrder}`);
  }

  const constraints = knownType
    ? parseConstraints(type as FieldType, entry.constraints ?? {}, `${path}.constraints`, errors)
    : null;
  if (Object.keys(errors).length > before || constraints === null) return null;

  const field: FieldDefinition = {
    name: name as string,
    label: label as string,
    type: type as FieldType,
    required: required as boolean,
    constraints,
    default_value: null,
    order: order as number,
  };
  const defaultValue: unknown = entry.default_value ?? null;
  if (defaultValue !== null) {
    // A default must be a value the field itself would accept, in the form it would be stored.
    const check = checkFieldValue(field, defaultValue);
    if (!check.ok) {
      errors[`${path}.default_value`] = check.messages;
      return null;
    }
    field.default_value = check.value;
  }
  return field;
}

function labelProblemOf(label: unknown): string | null {
  if (label === undefined) return 'label is required';
  if (typeof label !== 'string') return 'label must be a string';
  if (label.trim() === '') return 'label must not be empty';
  if (codePointLength(label) > LIMITS.maxLabelLength) {
    return `label must be at most ${LIMITS.maxLabelLength} characters`;
  }
  return hasUnstorableCharacters(label) ? 'label contains characters that are not allowed' : null;
}
