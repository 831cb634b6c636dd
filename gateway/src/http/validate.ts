/**
 * Request validation, one mechanism for every route: zod schemas for the path parameters, the query
 * and the body, parsed before the handler runs; the parsed values replace the raw ones. Failures
 * leave as the spec's envelope:
 *   - path parameters -> 400 with the schema's own message (`Invalid ticket id`);
 *   - query -> 400 `Invalid <parameters>` with `validation_errors` per parameter;
 *   - body -> 422 `Validation failed` with `validation_errors` per field: nested object keys joined
 *     with '.', array items as `[i]` (`custom_fields.severity`, `tags[2]`), the body itself `body`.
 * Only the first failing part is reported (params, then query, then body). A missing body is
 * validated as `{}`, so required fields are named one by one.
 */
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@tix/kit';

/** The schemas of one route; a part without a schema is left as express parsed it. */
export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  /**
   * Unknown query parameters are 400 naming them (a misspelt filter must not quietly widen a list);
   * the project context's `project` and `project_id` are known everywhere. Needs a zod object query.
   */
  strictQuery?: true;
  body?: z.ZodType;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : unknown;

/** What an operation's handler receives: each part as its schema parsed it. */
export interface ValidatedInput<S extends RequestSchemas> {
  params: Parsed<S['params']>;
  query: Parsed<S['query']>;
  body: Parsed<S['body']>;
}

/** The key an issue is reported under: `a.b`, `a[0].b`; `root` for the value itself. */
export function issueKey(path: readonly PropertyKey[], root: string): string {
  let key = '';
  for (const segment of path) {
    if (typeof segment === 'number') key += `[${segment}]`;
    else key += key === '' ? String(segment) : `.${String(segment)}`;
  }
  return key === '' ? root : key;
}

/** Field -> messages, each message once per field, in issue order. */
export function validationErrorsOf(
  issues: readonly z.core.$ZodIssue[],
  root: string,
  keyOf: (path: readonly PropertyKey[], root: string) => string = issueKey,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const messages = (errors[keyOf(issue.path, root)] ??= []);
    if (!messages.includes(issue.message)) messages.push(issue.message);
  }
  return errors;
}

/** The 400 for bad query parameters: `Invalid a, b` with the messages per parameter. */
export function invalidQuery(errors: Record<string, string[]>): AppError {
  return AppError.badRequest(`Invalid ${Object.keys(errors).join(', ')}`, errors);
}

/** A query issue is reported under its parameter (the first path segment). */
function parameterKey(path: readonly PropertyKey[], root: string): string {
  return path.length === 0 ? root : String(path[0]);
}

/** The query parameters every operation knows besides its own: the project context's. */
const CONTEXT_PARAMETERS = new Set(['project', 'project_id']);

export const unknownParameterMessage = (name: string) => `Unknown query parameter: ${name}`;

/** 400 naming each query parameter that `schema` does not declare. */
export function rejectUnknownParameters(schema: z.ZodType, query: Record<string, unknown>): void {
  if (!(schema instanceof z.ZodObject)) throw new Error('strictQuery needs a zod object query schema');
  const known = schema.shape as Record<string, unknown>;
  const unknown = Object.keys(query).filter((name) => !(name in known) && !CONTEXT_PARAMETERS.has(name));
  if (unknown.length > 0)
    throw invalidQuery(Object.fromEntries(unknown.map((name) => [name, [unknownParameterMessage(name)]])));
}

/** Parses path parameters; 400 with the first issue's message. */
export function parseParams<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw AppError.badRequest(result.error.issues[0]?.message ?? 'Invalid path parameter');
}

/** Parses the query; 400 with validation_errors per parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidQuery(validationErrorsOf(result.error.issues, 'query', parameterKey));
}

/** Parses a JSON body (absent -> `{}`); 422 with validation_errors per field. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value === undefined ? {} : value);
  if (result.success) return result.data;
  throw AppError.validation(validationErrorsOf(result.error.issues, 'body'));
}

/** Middleware validating the parts `schemas` names and replacing them with the parsed values. */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (request, _response, next) => {
    if (schemas.params) request.params = parseParams(schemas.params, request.params) as Request['params'];
    if (schemas.query) {
      if (schemas.strictQuery) rejectUnknownParameters(schemas.query, request.query);
      // Express 5 computes request.query with a getter on every read; pin the parsed value instead.
      Object.defineProperty(request, 'query', {
        value: parseQuery(schemas.query, request.query),
        writable: true,
        configurable: true,
        enumerable: true,
      });
    }
    if (schemas.body) request.body = parseBody(schemas.body, request.body);
    next();
  };
}

/**
 * The fields of `source` named by `keys` that are given (not undefined), to spread into a request
 * message: an optional field the client left out stays absent from the message.
 */
export function givenFields<T extends object, K extends keyof T>(
  source: T,
  ...keys: K[]
): { [P in K]?: Exclude<T[P], undefined> } {
  const fields: { [P in K]?: Exclude<T[P], undefined> } = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) fields[key] = value as Exclude<T[K], undefined>;
  }
  return fields;
}
