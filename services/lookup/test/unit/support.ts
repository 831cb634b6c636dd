/** Helpers for unit tests. */
import { expect } from 'chai';
import { AppError } from '@tix/kit';

/** Runs `action` and returns the AppError it throws (failing the test when it does not throw one). */
export async function refusal(action: () => unknown): Promise<AppError> {
  try {
    await action();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

/** The kind, message and validation errors of an AppError, for whole-value assertions. */
export function describe422(error: AppError): { kind: string; message: string; validationErrors: unknown } {
  return { kind: error.kind, message: error.message, validationErrors: error.validationErrors };
}
