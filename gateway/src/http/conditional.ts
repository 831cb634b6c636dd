/**
 * Conditional requests (RFC 9110 §13): every answer naming one resource carries a strong ETag, a GET
 * whose If-None-Match names it is 304 without a body, and a ticket's writes honour If-Match.
 * - A ticket's tag is derived from its id and version (`"t42.3"`): every change raises the version,
 *   so the tag changes with the representation, and a write's If-Match becomes the
 *   `expected_version` the ticket service checks in the write's own transaction (412 otherwise),
 *   with no read before it and no race after it.
 * - Any other resource's tag is a digest of its JSON.
 * The polls (polling.ts) use the same If-None-Match rule with weak tags naming a position.
 * A compressed answer is another representation with its own strong tag, the coding before the
 * closing quote (`"t42.3-gzip"`, compression.ts); both conditions accept either form, since they
 * name the same state of the resource.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError } from '@tix/kit';
import { MAX_INT32 } from '@tix/protos';
import { CODINGS, encodedEtag, noteRepresentationBytes } from './compression.js';
import { spliceJson, writeJsonText } from './envelope.js';

export const IF_MATCH_SEVERAL_VERSIONS = 'If-Match may name only one version of the ticket';

/** The strong tag of a ticket at a version. */
export function ticketEtag(ticket: { id: number; version: number }): string {
  return `"t${ticket.id}.${ticket.version}"`;
}

/** The strong tag of a payload: a digest of its JSON text (resources other than tickets). */
function digestEtag(payload: Buffer): string {
  return `"d${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
}

/** The entity tags of an If-Match or If-None-Match header (`*` kept as is). */
function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * Whether If-None-Match names `etag` or one of its compressed forms (weak comparison, RFC 9110
 * 13.1.2); `*` names any answer.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  const forms = new Set([etag, ...CODINGS.map((coding) => encodedEtag(etag, coding))].map(opaque));
  return entityTags(header).some((tag) => tag === '*' || forms.has(opaque(tag)));
}

/**
 * Answers `data` tagged with `etag`, or with a digest of the answer when none is given (serialised
 * once, for both, RawJson in it put in as it is: spliceJson): kept by the caller's client and revalidated on each use, never by shared caches;
 * 304 without a body to a GET that already holds it.
 */
export function sendTagged(
  request: Request,
  response: Response,
  etag: string | null,
  data: unknown,
  status = 200,
) {
  const payload = spliceJson({ ok: true, data });
  const tag = etag ?? digestEtag(payload);
  response.setHeader('ETag', tag);
  response.setHeader('Cache-Control', 'private, no-cache');
  if (request.method === 'GET' && ifNoneMatchNames(request.headers['if-none-match'], tag)) {
    // The 304's tag is the form this request would get (compressed or not: its size decides).
    noteRepresentationBytes(response, payload.length);
    response.statusCode = 304;
    response.end();
    return;
  }
  writeJsonText(response, status, payload);
}

/**
 * The version a ticket write must find (the ticket service's `expected_version`) from If-Match:
 * undefined without one or with `*` (the ticket must merely exist, which the write checks anyway);
 * 0, which no ticket has, when no strong tag of this ticket is named (a weak or foreign tag never
 * matches, RFC 9110 13.1.1), so the service answers 412. A compressed form (`"t42.3-gzip"`) names
 * the same version. Several versions of the ticket are a 400:
 * the service checks one.
 */
export function expectedTicketVersion(header: string | undefined, ticketId: number): number | undefined {
  if (header === undefined) return undefined;
  const tags = entityTags(header);
  if (tags.includes('*')) return undefined;
  const versions = new Set(
    tags.flatMap((tag) => {
      const match = /^"t(\d{1,10})\.(\d{1,10})(?:-(?:gzip|br))?"$/.exec(tag);
      const version = Number(match?.[2]);
      // A version no ticket can have (beyond int32) is a tag of nothing: no match, never a 500.
      return match !== null && Number(match[1]) === ticketId && version <= MAX_INT32 ? [version] : [];
    }),
  );
  if (versions.size > 1) throw AppError.badRequest(IF_MATCH_SEVERAL_VERSIONS);
  return versions.size === 1 ? [...versions][0]! : 0;
}
