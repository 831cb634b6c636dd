/** What the gateway's request validation throws, caught for unit tests of route schemas and middleware. */
import { expect } from 'chai';
import type { z } from 'zod';
import { AppError } from '@tix/kit';
import { parseBody, parseQuery } from '../../src/http/validate.js';

/** The AppError `action` throws; the test fails when it throws nothing or something else. */
export function thrownAppError(action: () => unknown): AppError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

/** The AppError `action` throws, which must carry `status` (`shown` names the input in a failure). */
export function refusal(action: () => unknown, status: number, shown?: string): AppError {
  const error = thrownAppError(action);
  expect(error.httpStatus, shown).to.equal(status);
  return error;
}

/** The refusal of a query (400). */
export function queryError(schema: z.ZodType, query: Record<string, unknown>): AppError {
  return refusal(() => parseQuery(schema, query), 400, JSON.stringify(query));
}

/** The validation_errors a query gets (400). */
export function queryErrors(schema: z.ZodType, query: Record<string, unknown>) {
  return queryError(schema, query).validationErrors;
}

/** The validation_errors a body gets (422). */
export function bodyErrors(schema: z.ZodType, body: unknown) {
  return refusal(() => parseBody(schema, body), 422, JSON.stringify(body)).validationErrors;
}
