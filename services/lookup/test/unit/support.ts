/** Helpers for unit tests. */
import type { AppError } from '@tix/kit';

export { refusal } from '@tix/kit/testing';

/** The kind, message and validation errors of an AppError, for whole-value assertions. */
export function describe422(error: AppError): { kind: string; message: string; validationErrors: unknown } {
  return { kind: error.kind, message: error.message, validationErrors: error.validationErrors };
}
