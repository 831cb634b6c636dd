/**
 * What an operation answers when it succeeds, as its declaration states it (routes/operation.ts) and
 * the document shows it: a JSON envelope with a documented `data` and an example, or one of the few
 * answers that are not the envelope (a file's bytes, the API description itself and its page).
 */
import type { z } from 'zod';
import { z as zod } from './zod-openapi.js';

export type OperationSuccess =
  /**
   * `{ ok: true, data }` with `status`; `example` is the `data` of a real answer. `polled`: a poll
   * (http/polling.ts), with ETag and X-Poll-Interval, answering 304 to a matching If-None-Match.
   * `tagged`: one resource with a strong ETag (http/conditional.ts), 304 likewise on a GET.
   * `linked`: a page of a list with `Link` to its neighbours (RFC 8288).
   */
  | {
      kind: 'json';
      status: number;
      description: string;
      data: z.ZodType;
      example: unknown;
      polled?: true;
      tagged?: true;
      linked?: true;
    }
  /** The bytes of a file with its own Content-Type (the attachment download). */
  | { kind: 'file_download' }
  /**
   * The JSON envelope served as a file to save (the data export): `data` as documented, streamed,
   * with `Content-Disposition: attachment` naming `filename` (an example) and `Cache-Control: no-store`.
   */
  | { kind: 'json_download'; description: string; data: z.ZodType; example: unknown; filename: string }
  | { kind: 'openapi_document' }
  | { kind: 'docs_page' }
  | { kind: 'docs_asset' };

/** The JSON envelope's success (see OperationSuccess 'json'). */
type JsonSuccess = Extract<OperationSuccess, { kind: 'json' }>;

/** A JSON success: `data` as documented, with an example. */
export function json(status: number, description: string, data: z.ZodType, example: unknown): JsonSuccess {
  return { kind: 'json', status, description, data, example };
}

/** A page of a list whose answer carries `Link` to the next, previous, first and last pages. */
export function linked(success: OperationSuccess): OperationSuccess {
  if (success.kind !== 'json') throw new Error('only a JSON answer is a page with links');
  return { ...success, linked: true };
}

/** A poll's 200 (see OperationSuccess 'json'). */
export function polled(description: string, data: z.ZodType, example: unknown): OperationSuccess {
  return { kind: 'json', status: 200, description, data, example, polled: true };
}

/** A JSON envelope downloaded as a file (see OperationSuccess 'json_download'). */
export function jsonDownload(options: {
  description: string;
  data: z.ZodType;
  example: unknown;
  filename: string;
}): OperationSuccess {
  return { kind: 'json_download', ...options };
}

/** One resource, `data: { <key>: <object> }`, with its strong ETag (see OperationSuccess 'json'). */
export function tagged(
  status: number,
  description: string,
  key: string,
  schema: z.ZodType,
  example: unknown,
): OperationSuccess {
  return { ...single(status, description, key, schema, example), tagged: true };
}

/** A success answering one named object, `data: { <key>: <object> }` (most operations). */
export function single(
  status: number,
  description: string,
  key: string,
  schema: z.ZodType,
  example: unknown,
): JsonSuccess {
  return json(status, description, zod.object({ [key]: schema }), { [key]: example });
}

/** `{ <key>: [items], ...extra }`. */
export function list<T extends z.ZodType>(key: string, item: T, extra: Record<string, z.ZodType> = {}) {
  return zod.object({ [key]: zod.array(item), ...extra });
}

/** A whole list with its `count`: `data: { <key>: [items], count }`, the example one item. */
export function counted(
  description: string,
  key: string,
  item: z.ZodType,
  example: unknown,
): OperationSuccess {
  return json(200, description, list(key, item, { count }), { [key]: [example], count: 1 });
}

/** The `data` of a counted list. */
export function countedData(key: string, items: unknown[]): Record<string, unknown> {
  return { [key]: items, count: items.length };
}

/** The `count` beside a list. */
export const count = zod.number().int().meta({ description: 'Number of items in the list.' });

/** `data: { message }`: what was done. */
export const message = zod.object({ message: zod.string().meta({ description: 'What was done.' }) });

/** The confirmation a deletion answers: `data: { message }`. */
export function confirmation(example: string): OperationSuccess {
  return json(200, 'Confirmation.', message, { message: example });
}

/** What a deletion answers once its service call has: the service's confirmation, `data: { message }`. */
export async function confirmed(
  deletion: Promise<{ message: string }>,
): Promise<{ data: { message: string } }> {
  const { message } = await deletion;
  return { data: { message } };
}
