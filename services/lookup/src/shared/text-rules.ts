/**
 * The text rules of lookup's names and descriptions, recorded into the kit's FieldErrors so one
 * refusal reports every problem of a request at once.
 */
import type { FieldErrors } from '@tix/kit';
import { codePointLength, hasControlCharacters } from '@tix/protos';

/**
 * Checks a required one-line text: trimmed, non-empty, at most `max` characters (code points, as
 * everywhere in the contract), no control characters. Returns the trimmed value (also when it
 * failed, so callers can keep collecting errors).
 */
export function checkRequiredText(
  errors: FieldErrors,
  field: string,
  value: string,
  options: { label: string; max: number },
): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) errors.add(field, `${options.label} is required`);
  else if (codePointLength(trimmed) > options.max)
    errors.add(field, `${options.label} must be at most ${options.max} characters`);
  else if (hasControlCharacters(trimmed, false))
    errors.add(field, `${options.label} must not contain control characters`);
  return trimmed;
}

/**
 * Checks an optional free text (kept as given): at most `max` characters, no control characters
 * other than tabs and line breaks.
 */
export function checkOptionalText(
  errors: FieldErrors,
  field: string,
  value: string,
  options: { label: string; max: number },
): string {
  if (codePointLength(value) > options.max)
    errors.add(field, `${options.label} must be at most ${options.max} characters`);
  else if (hasControlCharacters(value, true))
    errors.add(field, `${options.label} must not contain control characters`);
  return value;
}
