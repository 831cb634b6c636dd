/** The rule for one value of one field: its type, its constraints, and the form it is stored in. */
import { codePointLength } from '@tix/contract';
import {
  hasUnstorableCharacters,
  isCalendarDate,
  isEmailAddress,
  isHttpUrl,
  normaliseDateTime,
} from './formats.js';
import { compileFieldPattern } from './pattern-safety.js';
import { type FieldDefinition, LIMITS } from './types.js';

/** A checked value in its stored form, or every message explaining why it is refused. */
export type ValueCheck = { ok: true; value: unknown } | { ok: false; messages: string[] };

/** Up to this many allowed values are listed in a message; longer lists are not spelled out. */
const LISTED_VALUES = 20;

/**
 * Checks a non-null `value` against `field`'s type and constraints and returns it as it is stored
 * (datetimes normalised to UTC, -0 as 0). Blank strings on a required field read as "is required".
 */
export function checkFieldValue(field: FieldDefinition, value: unknown): ValueCheck {
  const { label } = field;
  if (typeof value === 'string') {
    if (field.required && value.trim() === '') return refused(`${label} is required`);
    if (hasUnstorableCharacters(value)) return refused(`${label} contains characters that are not allowed`);
  }
  switch (field.type) {
    case 'text':
    case 'textarea':
      return checkText(field, value);
    case 'number':
      return checkNumber(field, value);
    case 'date':
      return typeof value === 'string' && isCalendarDate(value)
        ? accepted(value)
        : refused(`${label} must be a valid date in YYYY-MM-DD format`);
    case 'datetime': {
      const normalised = typeof value === 'string' ? normaliseDateTime(value) : null;
      return normalised !== null
        ? accepted(normalised)
        : refused(
            `${label} must be a valid date-time with seconds and a time zone, e.g. 2024-05-01T09:30:00Z`,
          );
    }
    case 'select':
      return typeof value === 'string' && allowedValues(field).includes(value)
        ? accepted(value)
        : refused(`${label} must be one of${listOfAllowed(field)}`);
    case 'multi_select':
      return checkMultiSelect(field, value);
    case 'boolean':
      return typeof value === 'boolean' ? accepted(value) : refused(`${label} must be true or false`);
    case 'email':
      return typeof value === 'string' && isEmailAddress(value)
        ? accepted(value)
        : refused(`${label} must be a valid email address`);
    case 'url':
      return typeof value === 'string' && isHttpUrl(value)
        ? accepted(value)
        : refused(`${label} must be a valid http or https URL`);
  }
}

function checkText(field: FieldDefinition, value: unknown): ValueCheck {
  const { label, constraints } = field;
  if (typeof value !== 'string') return refused(`${label} must be a string`);
  const ceiling = field.type === 'text' ? LIMITS.maxTextLength : LIMITS.maxTextareaLength;
  const maxLength = Math.min(numberConstraint(constraints.max_length) ?? ceiling, ceiling);
  const minLength = numberConstraint(constraints.min_length);
  const length = codePointLength(value);
  const messages: string[] = [];
  if (minLength !== undefined && length < minLength) {
    messages.push(`${label} must be at least ${characters(minLength)}`);
  }
  if (length > maxLength) messages.push(`${label} must be at most ${characters(maxLength)}`);
  // An over-long value is not matched at all: the length cap is part of what keeps patterns cheap.
  else if (typeof constraints.pattern === 'string' && !compileFieldPattern(constraints.pattern).test(value)) {
    messages.push(`${label} does not match the required format`);
  }
  return messages.length > 0 ? { ok: false, messages } : accepted(value);
}

function checkNumber(field: FieldDefinition, value: unknown): ValueCheck {
  const { label, constraints } = field;
  if (typeof value !== 'number' || !Number.isFinite(value)) return refused(`${label} must be a number`);
  const min = numberConstraint(constraints.min_value);
  const max = numberConstraint(constraints.max_value);
  if (min !== undefined && value < min) return refused(`${label} must be at least ${min}`);
  if (max !== undefined && value > max) return refused(`${label} must be at most ${max}`);
  return accepted(value === 0 ? 0 : value);
}

function checkMultiSelect(field: FieldDefinition, value: unknown): ValueCheck {
  const { label } = field;
  if (!Array.isArray(value)) return refused(`${label} must be an array of values`);
  if (field.required && value.length === 0) return refused(`${label} is required`);
  const allowed = new Set(allowedValues(field));
  const messages: string[] = [];
  if (!value.every((item) => typeof item === 'string' && allowed.has(item))) {
    messages.push(`${label} may only contain${listOfAllowed(field)}`);
  }
  if (new Set(value).size !== value.length) messages.push(`${label} must not contain duplicate values`);
  return messages.length > 0 ? { ok: false, messages } : accepted([...(value as string[])]);
}

function allowedValues(field: FieldDefinition): string[] {
  const values = field.constraints.allowed_values;
  return Array.isArray(values) ? values.filter((item): item is string => typeof item === 'string') : [];
}

/** `: a, b, c`, or ` the allowed values` when the list is too long to show. */
function listOfAllowed(field: FieldDefinition): string {
  const values = allowedValues(field);
  return values.length <= LISTED_VALUES ? `: ${values.join(', ')}` : ' the allowed values';
}

function numberConstraint(constraint: unknown): number | undefined {
  return typeof constraint === 'number' && Number.isFinite(constraint) ? constraint : undefined;
}

function characters(count: number): string {
  return count === 1 ? '1 character' : `${count} characters`;
}

function accepted(value: unknown): ValueCheck {
  return { ok: true, value };
}

function refused(message: string): ValueCheck {
  return { ok: false, messages: [message] };
}
