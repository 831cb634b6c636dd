/**
 * Building blocks for the gateway's request schemas (zod 4): each returns a schema carrying clear,
 * human messages for every way a value can be wrong, and `.meta({ description, example })` so the
 * OpenAPI document can be generated from the same schemas (z.toJSONSchema). Messages name the field
 * by `label` ("Title must be at most 200 characters"); query parameters are named as spelled in the URL.
 */
import { z } from 'zod';
import { fitsCodePoints, MAX_INT32, PAGE_LIMITS, SLUG_MAX_LENGTH, USER_LIMITS } from '@tix/protos';

/** What every field documents. */
export interface FieldDoc {
  description: string;
  example?: unknown;
}

const DIGITS = /^[0-9]+$/;

/**
 * A JSON integer in [min, max] (default max: int32). Strings such as "5" are refused: bodies are
 * JSON, so numbers come as numbers.
 */
export function integerField(label: string, doc: FieldDoc & { min: number; max?: number }) {
  const max = doc.max ?? MAX_INT32;
  return z
    .number({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be an integer`),
    })
    .int({ error: `${label} must be an integer`, abort: true })
    .min(doc.min, `${label} must be at least ${doc.min}`)
    .max(max, `${label} must be at most ${max}`)
    .meta(metaOf(doc));
}

/** A JSON id: an integer from 1 to 2147483647. */
export function idField(label: string, doc: FieldDoc) {
  return integerField(label, { ...doc, min: 1 });
}

/**
 * A JSON string of 1..max code points after trimming (whitespace-only counts as empty), given
 * trimmed to the handler.
 */
export function requiredTextField(label: string, doc: FieldDoc & { max: number }) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`),
    })
    .trim()
    .min(1, `${label} cannot be empty`)
    .refine((value) => fitsCodePoints(value, doc.max), `${label} must be at most ${doc.max} characters`)
    .meta({ ...metaOf(doc), maxLength: doc.max });
}

/** A JSON string of at most `max` code points, kept as given (markdown keeps its whitespace). */
export function textField(label: string, doc: FieldDoc & { max: number }) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`),
    })
    .refine((value) => fitsCodePoints(value, doc.max), `${label} must be at most ${doc.max} characters`)
    .meta({ ...metaOf(doc), maxLength: doc.max });
}

/** A non-empty slug string (its meaning, e.g. a status of the project, is checked by the service). */
export function slugField(label: string, doc: FieldDoc) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`),
    })
    .min(1, `${label} cannot be empty`)
    .max(SLUG_MAX_LENGTH, `${label} must be at most ${SLUG_MAX_LENGTH} characters`)
    .meta(metaOf(doc));
}

/**
 * A ticket type's field_schema: a JSON array of at most `max` objects. What makes an entry valid is
 * the lookup service's rule (@tix/custom-fields); it answers each problem under `field_schema[i]`.
 */
export function fieldSchemaField(doc: FieldDoc & { max: number }) {
  return z
    .array(z.record(z.string(), z.unknown(), { error: 'Each field must be an object' }), {
      error: 'field_schema must be an array',
    })
    .max(doc.max, `At most ${doc.max} fields`)
    .meta(metaOf(doc));
}

/** One of `values`; the message lists them. */
export function enumField<const T extends readonly [string, ...string[]]>(
  label: string,
  values: T,
  doc: FieldDoc,
) {
  return z
    .enum(values, {
      error: (issue) =>
        issue.input === undefined ? `${label} is required` : `${label} must be one of ${values.join(', ')}`,
    })
    .meta(metaOf(doc));
}

/**
 * A query parameter holding a decimal integer in [min, max], parsed to a number. Every way of being
 * wrong (not digits, out of range, given twice) answers the same `message`.
 */
export function integerParam(doc: FieldDoc & { min: number; max: number; message: string }) {
  return z
    .string({ error: doc.message })
    .regex(DIGITS, doc.message)
    .transform(Number)
    .pipe(z.number().int().min(doc.min, doc.message).max(doc.max, doc.message))
    .meta(metaOf(doc));
}

/** A query parameter holding a string of 1..max code points after trimming. */
export function textParam(doc: FieldDoc & { max: number; message: string }) {
  return z
    .string({ error: doc.message })
    .trim()
    .min(1, doc.message)
    .refine((value) => fitsCodePoints(value, doc.max), doc.message)
    .meta({ ...metaOf(doc), maxLength: doc.max });
}

/** A query parameter naming one of `values`. */
export function enumParam<const T extends readonly [string, ...string[]]>(
  values: T,
  doc: FieldDoc & { message: string },
) {
  return z.enum(values, { error: doc.message }).meta(metaOf(doc));
}

/**
 * A path parameter holding an id: 1-10 digits without a leading zero, at most 2147483647. Any other
 * value answers `message` (e.g. `Invalid ticket id`).
 */
export function idParam(doc: FieldDoc & { message: string }) {
  return z
    .string({ error: doc.message })
    .regex(/^[1-9][0-9]{0,9}$/, doc.message)
    .transform(Number)
    .pipe(z.number().max(MAX_INT32, doc.message))
    .meta(metaOf(doc));
}

const DATE_TIME = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/** A query parameter holding an ISO 8601 date-time with its offset (or a date: its midnight UTC), given on as UTC. */
export function timeParam(name: string, doc: FieldDoc) {
  const message = `${name} must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z`;
  return (
    z
      .string({ error: message })
      // Year 0 parses but PostgreSQL has no such year: it would fail in the service (a 500), not here.
      .refine((value) => DATE_TIME.safeParse(value).success && new Date(value).getUTCFullYear() >= 1, message)
      .transform((value) => new Date(value).toISOString())
      .meta({ ...doc, format: 'date-time' })
  );
}

/** `page` and `per_page` as every list takes them (spec Pagination); `items` names what a page holds. */
export function pageParams(items: string) {
  return {
    page: integerParam({
      min: 1,
      max: MAX_INT32,
      message: 'page must be a positive integer',
      description: 'Page number, from 1.',
      example: 1,
    }).default(1),
    per_page: integerParam({
      min: 1,
      max: PAGE_LIMITS.maxPerPage,
      message: `per_page must be an integer from 1 to ${PAGE_LIMITS.maxPerPage}`,
      description: `${items} per page, 1 to ${PAGE_LIMITS.maxPerPage}.`,
      example: 50,
    }).default(PAGE_LIMITS.defaultPerPage),
  };
}

function metaOf(doc: FieldDoc): { description: string; example?: unknown } {
  return doc.example === undefined
    ? { description: doc.description }
    : { description: doc.description, example: doc.example };
}

/** A password as the gateway checks it: a string, bounded; its rules are the lookup service's. */
export function passwordField(label: string) {
  return textField(label, {
    max: USER_LIMITS.passwordMax,
    description: `${USER_LIMITS.passwordMin} to ${USER_LIMITS.passwordMax} characters.`,
  });
}
