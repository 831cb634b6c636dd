/** The refusal a test expects of a call: the AppError itself, or its parts for whole-value assertions. */
import { expect } from 'chai';
import { AppError } from '../errors.js';

/**
 * The AppError a call was refused with: `call` is its promise, or a function that throws or
 * rejects (fails the test when it succeeded, or failed with anything but an AppError).
 */
export async function refusal(call: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the call to be refused');
}

/** kind + message + validation errors of a refused call, for whole-value assertions. */
export async function refusalOf(
  call: Promise<unknown>,
): Promise<{ kind: string; message: string; validation_errors?: unknown }> {
  const error = await refusal(call);
  return {
    kind: error.kind,
    message: error.message,
    ...(error.validationErrors ? { validation_errors: error.validationErrors } : {}),
  };
}
