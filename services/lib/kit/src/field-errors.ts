/**
 * Collecting per-field validation messages, so one refusal reports every problem of a request at
 * once (422 validation_failed with validation_errors keyed by field).
 */
import { AppError } from './errors.js';

/** Field path -> messages, in the order they were found. */
export class FieldErrors {
  private readonly errors: Record<string, string[]> = {};

  /** Records `message` for `field`. */
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** Records every message of `errors` (e.g. the custom-field validator's result). */
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
