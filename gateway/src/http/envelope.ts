/**
 * The spec's response envelope, written in one place: `{ ok: true, data }` on success and
 * `{ ok: false, error: { code, message, validation_errors? } }` (kit toErrorEnvelope) on failure.
 */
import type { Response } from 'express';
import { toErrorEnvelope, type AppError } from '@tix/kit';
import { drained, STREAM_FLUSH_CHARS } from './backpressure.js';

/** Writes `body` as JSON with `status`; skips express's res.json machinery (etag, callbacks). */
export function writeJson(response: Response, status: number, body: unknown): void {
  writeJsonText(response, status, JSON.stringify(body));
}

/** Writes JSON already serialised (once, by a caller that also needed its bytes, or spliced). */
export function writeJsonText(response: Response, status: number, payload: string | Buffer): void {
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(payload));
  response.end(payload);
}

/** Sends a success envelope. */
export function sendData(response: Response, data: unknown, status = 200): void {
  writeJson(response, status, { ok: true, data });
}

/**
 * JSON text put into an answer as it is: bytes another process already serialised (the ticket
 * service's tickets), so the gateway neither decodes nor re-encodes them. `T` is what the text
 * holds (the ticket service's tests check its writer against the API's JSON).
 */
export class RawJson<T> {
  declare readonly holds?: T;
  constructor(readonly bytes: Buffer) {}
}

/**
 * What JSON.stringify would make of `value`, with RawJson anywhere in plain objects and arrays put in
 * verbatim. On every answer that carries a ticket, so it makes no closure per call and converts the
 * text between raw parts once (docs/decisions.md, "Handler input, read when read").
 */
export function spliceJson(value: unknown): Buffer {
  const splice: Splice = { parts: [], text: '' };
  spliceInto(splice, value);
  if (splice.parts.length === 0) return Buffer.from(splice.text, 'utf8');
  splice.parts.push(Buffer.from(splice.text, 'utf8'));
  return Buffer.concat(splice.parts);
}

/** spliceJson's output so far: the parts done and the text since the last raw part. */
interface Splice {
  parts: Buffer[];
  text: string;
}

/** Whether JSON.stringify leaves `value` out of an object (null inside an array). */
function hasNoJsonForm(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function spliceInto(splice: Splice, item: unknown): void {
  if (item instanceof RawJson) {
    splice.parts.push(Buffer.from(splice.text, 'utf8'), item.bytes);
    splice.text = '';
  } else if (Array.isArray(item)) {
    splice.text += '[';
    for (let index = 0; index < item.length; index += 1) {
      if (index > 0) splice.text += ',';
      const element: unknown = item[index];
      if (hasNoJsonForm(element)) splice.text += 'null';
      else spliceInto(splice, element);
    }
    splice.text += ']';
  } else if (item !== null && typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype) {
    splice.text += '{';
    let first = true;
    for (const key of Object.keys(item)) {
      const element = (item as Record<string, unknown>)[key];
      if (hasNoJsonForm(element)) continue;
      splice.text += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      spliceInto(splice, element);
    }
    splice.text += '}';
  } else {
    splice.text += JSON.stringify(item);
  }
}

/** Sends a success envelope whose data holds RawJson (see spliceJson); otherwise as sendData. */
export function sendSplicedData(response: Response, data: unknown, status = 200): void {
  writeJsonText(response, status, spliceJson({ ok: true, data }));
}

/**
 * Sends the error envelope for `error`. `extra` adds top-level properties beside `error` (readiness
 * detail under `data`); internal errors never show their message (kit toErrorEnvelope).
 */
export function sendError(response: Response, error: AppError, extra?: Record<string, unknown>): void {
  const { status, body } = toErrorEnvelope(error);
  writeJson(response, status, extra ? { ...body, ...extra } : body);
}

/** How sendDataStream writes its items: each presented as one element, or as JSON text of its own. */
export type StreamOptions<T> = {
  /** Other fields of `data`, before the list. */
  before?: Record<string, unknown>;
} & (
  | {
      /** What each item looks like in the answer (a presenter). */
      present?: (item: T) => unknown;
      /** Other fields of `data` after the list, given how many items were sent. */
      after?: (count: number) => Record<string, unknown>;
    }
  | {
      /**
       * The JSON text of the elements an item holds, comma-separated ('' for none): items that are
       * batches another process already serialised (TicketsJson), written as they are.
       */
      elements: (item: T) => string;
    }
);

/** A list to stream (sendDataStream): its key in `data`, its items, and how they are written. */
export interface DataStream {
  key: string;
  items: AsyncIterable<unknown>;
  options: StreamOptions<unknown>;
}

/** A DataStream of `items`, with `options` typed by them. */
export function dataStream<T>(
  key: string,
  items: AsyncIterable<T>,
  options: StreamOptions<T> = {},
): DataStream {
  return { key, items, options: options as StreamOptions<unknown> };
}

/** The elements of a JSON array's text (`[a,b]` -> `a,b`), for StreamOptions.elements. */
export function arrayElements(arrayText: Buffer): string {
  return arrayText.toString('utf8').slice(1, -1);
}

/**
 * Sends `{ ok: true, data: { <key>: [ ...items ] } }`, writing items as they arrive, so a large
 * result never sits in the gateway's memory. Nothing is committed until the first item (or the end)
 * arrives: a failure before that still leaves as a proper error envelope (the error is thrown to the
 * error handler). A failure after the 200 was sent can only cut the response short, which the
 * client sees as invalid JSON; it is logged.
 */
export async function sendDataStream<T>(
  response: Response,
  key: string,
  items: AsyncIterable<T>,
  options: StreamOptions<T> = {},
): Promise<void> {
  const elementsOf: (item: T) => string =
    'elements' in options
      ? options.elements
      : (item) => JSON.stringify((options.present ?? ((x: T) => x))(item));
  const iterator = items[Symbol.asyncIterator]();
  let next = await iterator.next();
  response.statusCode = 200;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  const before = options.before ? JSON.stringify(options.before).slice(1, -1) : '';
  let chunk = `{"ok":true,"data":{${before}${before ? ',' : ''}${JSON.stringify(key)}:[`;
  let count = 0;
  try {
    while (!next.done) {
      const elements = elementsOf(next.value);
      if (elements !== '') {
        chunk += (count === 0 ? '' : ',') + elements;
        count += 1;
      }
      // Small items go out in fewer, larger writes; wait when the client reads slower than we produce.
      if (chunk.length >= STREAM_FLUSH_CHARS) {
        const accepted = response.write(chunk);
        chunk = '';
        if (!accepted) {
          await drained(response);
          if (response.destroyed) return;
        }
      }
      next = await iterator.next();
    }
    const after =
      'after' in options && options.after ? JSON.stringify(options.after(count)).slice(1, -1) : '';
    response.end(`${chunk}]${after ? ',' : ''}${after}}}`);
  } catch (error) {
    response.req.log.error({ err: error }, 'stream failed after the response started; cutting it short');
    response.destroy();
  } finally {
    if (!next.done) await iterator.return?.();
  }
}

/** The lists of a sectioned document (routes/operation.ts SectionedDocument), as sendSections writes them. */
export interface DocumentSections {
  head: Record<string, unknown>;
  sections: readonly {
    key: string;
    first: IteratorResult<unknown>;
    items: AsyncIterator<unknown>;
    /** The item's JSON text. */
    text: (item: never) => string;
  }[];
}

/**
 * Writes `{ ok: true, data: { ...head, <key>: [...], ... } }`: the head, then each section's items
 * as the client takes them. Returns false when the client left (nothing more to do); throws when a
 * stream fails mid-way.
 */
export async function sendSections(response: Response, document: DocumentSections): Promise<boolean> {
  let pending = `{"ok":true,"data":${JSON.stringify(document.head).slice(0, -1)}`;
  /** Writes what has gathered; waits while the client reads slower than the services answer. */
  const flush = async (): Promise<boolean> => {
    const accepted = response.write(pending);
    pending = '';
    if (!accepted) await drained(response);
    return !response.destroyed;
  };
  for (const section of document.sections) {
    pending += `,${JSON.stringify(section.key)}:[`;
    let next = section.first;
    let count = 0;
    while (!next.done) {
      pending += (count === 0 ? '' : ',') + section.text(next.value as never);
      count += 1;
      if (pending.length >= STREAM_FLUSH_CHARS && !(await flush())) return false;
      next = await section.items.next();
      if (response.destroyed) return false;
    }
    pending += ']';
  }
  response.end(`${pending}}}`);
  return true;
}
