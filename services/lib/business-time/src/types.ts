/** Shared shapes of the SLA core (docs/sla.md). */

/** Field path -> messages, the shape of a 422's validation_errors. */
export type FieldErrors = Record<string, string[]>;

/** A validation outcome: the normalised value, or every problem at once keyed by field path. */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Adds `message` under `field`. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}
