/**
 * The text rules of lookup's names and descriptions, recorded into the kit's FieldErrors so one
 * refusal reports every problem of a request at once.
 */
import type { FieldErrors } from '@tix/kit';

/**
 * A caller-supplied value quoted for a message, cut to `max` characters: messages (and the gRPC
 * metadata carrying them) stay small whatever was sent.
 */
export function quoted(value: string, max = 64): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

/**
 * True when `text` holds C0 control characters or DEL (tab, LF and CR allowed when `multiLine`).
 * PostgreSQL text cannot store NUL at all, and the others are never meant in names.
 */
export function hasControlCharacters(text: string, multiLine: boolean): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7f) return true;
    if (code < 0x20 && !(multiLine && (code === 0x09 || code === 0x0a || code === 0x0d))) return true;
  }
  return false;
}

/**
 * Checks a required one-line text: trimmed, non-empty, at most `max` characters, no control
 * characters. Returns the trimmed value (also when it failed, so callers can keep collecting errors).
 */
export function checkRequiredText(
  errors: FieldErrors,
  field: string,
  value: string,
  options: { label: string; max: number },
): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) errors.add(field, `${options.label} is required`);
  else if (trimmed.length > options.max)
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
  if (value.length > options.max)
    errors.add(field, `${options.label} must be at most ${options.max} characters`);
  else if (hasControlCharacters(value, true))
    errors.add(field, `${options.label} must not contain control characters`);
  return value;
}
