/**
 * Collecting per-field validation messages, so one refusal reports every problem of a request at
 * once (422 validation_failed with validation_errors keyed by field).
 */
import { AppError } from '@tix/kit';

/** Field path -> messages, in the order they were found. */
export class FieldErrors {
  private readonly errors: Record<string, string[]> = {};

  /** Records `message` for `field`. */
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** Records every message of `errors` (e.g. another validator's result). */
  addAll(errors: Record<string, readonly string[]>): void {
    for (const [field, messages] of Object.entries(errors))
      for (const message of messages) this.add(field, message);
  }

  /** True when `field` already has a message (later checks of the same field are then skipped). */
  has(field: string): boolean {
    return field in this.errors;
  }

  get isEmpty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  /** Throws a 422 AppError carrying every collected message; does nothing when there are none. */
  throwIfAny(): void {
    if (!this.isEmpty) throw AppError.validation({ ...this.errors });
  }
}

/** A 422 AppError for a single field. */
export function fieldError(field: string, message: string): AppError {
  return AppError.validation({ [field]: [message] });
}

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
