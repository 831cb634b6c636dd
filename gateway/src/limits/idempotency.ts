/**
 * Idempotency-Key on POST (spec "Idempotency (POST)"; notes A.2). Runs after authentication and body
 * parsing, for callers with a principal (API key or signed-in session):
 *
 * - scope: the caller (API key id, or session user id) + method + path + key; fingerprint: sha256 of
 *   method, path with query and the canonical JSON body (keys sorted);
 * - the key is claimed atomically before the route runs; a 2xx response is stored (status,
 *   Content-Type, Location, the exact body) for 1 hour before it is sent; any other outcome drops the
 *   claim so the client can correct and retry;
 * - a retry with the same fingerprint gets the stored response again, byte for byte, with
 *   `X-Idempotency-Replay: true`; another fingerprint gets 409; a duplicate while the first is still
 *   running gets 409 too (never a second execution);
 * - a claim expires after `claimTtlMs`, so a gateway that died mid-request does not block the key;
 * - the claimed scope and fingerprint go down with the service calls (request.idempotency ->
 *   callContext): the ticket service records them with the ticket it creates, closing the window
 *   where a gateway dies after the create committed but before the response was stored.
 *
 * Multipart uploads are not covered: their body is streamed to the attachment service and cannot be
 * fingerprinted before it runs (docs/decisions.md).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '@tix/kit';
import type { CompletedRecord, IdempotencyStore } from './idempotency-store.js';

export const IDEMPOTENCY_RETENTION_MS = 3_600_000;
export const INVALID_IDEMPOTENCY_KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
export const IDEMPOTENCY_MISMATCH_MESSAGE = 'Idempotency-Key was already used with a different request';
export const IDEMPOTENCY_IN_PROGRESS_MESSAGE =
  'A request with this Idempotency-Key is still in progress; retry after it has finished';

const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'location'] as const;
/** Responses larger than this are not stored (the claim is dropped); creates answer far less. */
const MAX_STORED_BODY_BYTES = 1024 * 1024;

/** JSON with object keys sorted at every level, so `{a,b}` and `{b,a}` fingerprint alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isMultipart(request: Request): boolean {
  return /^multipart\//i.test(request.headers['content-type'] ?? '');
}

/** Collects what the route writes; `finish` decides (asynchronously) before the last bytes go out. */
function captureResponse(
  response: Response,
  finish: (status: number, body: Buffer | null) => Promise<void>,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size <= MAX_STORED_BODY_BYTES) chunks.push(buffer);
  };
  const originalWrite = response.write.bind(response) as (...args: unknown[]) => boolean;
  const originalEnd = response.end.bind(response) as (...args: unknown[]) => Response;
  response.write = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    return originalWrite(...args);
  }) as Response['write'];
  response.end = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    const body = size <= MAX_STORED_BODY_BYTES ? Buffer.concat(chunks) : null;
    void finish(response.statusCode, body).finally(() => originalEnd(...args));
    return response;
  }) as Response['end'];
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a claim lives without its request finishing (crashed gateway). */
  claimTtlMs: number;
  retentionMs?: number;
}

/** The middleware described in the file header. */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const retentionMs = options.retentionMs ?? IDEMPOTENCY_RETENTION_MS;
  const { store } = options;
  return async (request, response, next) => {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined) {
      next();
      return;
    }
    if (typeof header !== 'string' || !VALID_KEY.test(header) || header.trim() === '') {
      throw AppError.badRequest(INVALID_IDEMPOTENCY_KEY_MESSAGE);
    }
    const principal = request.principal;
    if (!principal || isMultipart(request)) {
      next();
      return;
    }
    const caller = principal.kind === 'api_key' ? `key:${principal.key_id}` : `user:${principal.user_id}`;
    const url = request.originalUrl;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const scope = sha256(`${caller}\n${request.method}\n${path}\n${header}`);
    const fingerprint = sha256(`${request.method}\n${url}\n${canonicalJson(request.body ?? null)}`);
    const token = randomUUID();

    response.setHeader('Idempotency-Key', header);
    const existing = await store.claim(scope, { state: 'in_flight', fingerprint, token }, options.claimTtlMs);
    if (existing) {
      if (existing.fingerprint !== fingerprint) throw AppError.conflict(IDEMPOTENCY_MISMATCH_MESSAGE);
      if (existing.state === 'in_flight') throw AppError.conflict(IDEMPOTENCY_IN_PROGRESS_MESSAGE);
      replay(response, existing);
      return;
    }

    // A response that never reaches end() (client gone and route abandoned, stream cut) keeps its
    // claim until the claim expires: releasing earlier could let a retry run while the first request
    // is still creating.
    const release = () =>
      store.release(scope, token).catch((error: unknown) => {
        request.log.warn({ err: error }, 'idempotency: releasing the claim failed');
      });
    captureResponse(response, async (status, body) => {
      if (status < 200 || status >= 300 || body === null) {
        if (body === null) request.log.warn({ status }, 'idempotency: response too large to store');
        return release();
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = response.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const record: CompletedRecord = {
        state: 'done',
        fingerprint,
        status,
        headers,
        body: body.toString('base64'),
      };
      await store.complete(scope, token, record, retentionMs).catch((error: unknown) => {
        request.log.warn({ err: error }, 'idempotency: storing the response failed');
      });
    });
    // Passed down with the service calls (callContext): CreateTicket stores the scope with the
    // ticket, so a retry after this record was lost (gateway crash) still finds the first ticket.
    request.idempotency = { scope, fingerprint };
    next();
  };
}

/** Sends a stored response again: same status and bytes, marked as a replay. */
function replay(response: Response, record: CompletedRecord): void {
  const body = Buffer.from(record.body, 'base64');
  for (const [name, value] of Object.entries(record.headers)) response.setHeader(name, value);
  response.setHeader('X-Idempotency-Replay', 'true');
  response.setHeader('Content-Length', body.length);
  response.statusCode = record.status;
  response.end(body);
}
