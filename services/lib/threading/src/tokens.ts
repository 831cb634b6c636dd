/**
 * What Tix puts in outgoing mail so replies find their ticket (docs/mail.md, "Threading rules"):
 * an HMAC-signed token (`[ref:<token>]` in the footer, `<slug>+<token>@domain` as Reply-To), the
 * subject tag `[PREFIX-n]` and the Message-ID of each mail.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SIG_LENGTH = 12;

function signature(ticketId: number, secret: string): string {
  // base32 lower-case: survives MTAs that lower-case local parts.
  const mac = createHmac('sha256', secret).update(`tix-ticket:${ticketId}`).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of mac) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < SIG_LENGTH) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= SIG_LENGTH) break;
  }
  return out;
}

/** `<ticket id base36>-<12 chars of HMAC>`, e.g. `2n9c-k3j...`. */
export function ticketToken(ticketId: number, secret: string): string {
  if (!Number.isSafeInteger(ticketId) || ticketId <= 0)
    throw new RangeError('ticketId must be a positive integer');
  if (!secret) throw new RangeError('a token secret is required');
  return `${ticketId.toString(36)}-${signature(ticketId, secret)}`;
}

function verify(token: string, secret: string): number | null {
  const m = /^([0-9a-z]{1,11})-([a-z2-7]{12})$/.exec(token.toLowerCase());
  if (!m) return null;
  const id = parseInt(m[1] ?? '', 36);
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const expected = Buffer.from(signature(id, secret));
  const given = Buffer.from(m[2] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
}

/**
 * The ticket id of the first valid token in `text`: `[ref:<token>]` anywhere, a plus-address
 * `local+<token>@domain`, or a bare token. Forged or altered tokens give null.
 */
export function readToken(text: string, secret: string): number | null {
  if (!text || !secret) return null;
  for (const m of text.matchAll(/\[ref:([0-9a-zA-Z-]{1,40})\]/g)) {
    const id = verify(m[1] ?? '', secret);
    if (id !== null) return id;
  }
  for (const m of text.matchAll(/[^\s<>@+]+\+([0-9a-zA-Z-]{1,40})@/g)) {
    const id = verify(m[1] ?? '', secret);
    if (id !== null) return id;
  }
  return verify(text.trim(), secret);
}

/** The footer line carrying the token. */
export function tokenFooter(ticketId: number, secret: string): string {
  return `[ref:${ticketToken(ticketId, secret)}]`;
}

/** `<slug>+<token>@<domain>`: the Reply-To of outgoing mail. */
export function plusAddress(slug: string, domain: string, ticketId: number, secret: string): string {
  return `${slug}+${ticketToken(ticketId, secret)}@${domain}`;
}

export interface SubjectTag {
  prefix: string;
  number: number;
}

/** Every `[PREFIX-n]` tag in a subject, in order (prefix upper-cased). */
export function parseSubjectTags(subject: string): SubjectTag[] {
  const tags: SubjectTag[] = [];
  for (const m of (subject ?? '').matchAll(/\[([A-Za-z][A-Za-z0-9]{0,19})-(\d{1,15})\]/g)) {
    const n = Number(m[2]);
    if (Number.isSafeInteger(n) && n > 0) tags.push({ prefix: (m[1] ?? '').toUpperCase(), number: n });
  }
  return tags;
}

/** `[PREFIX-n] subject` unless the tag is there already. */
export function tagSubject(subject: string, ticketNumber: string): string {
  return subject.includes(`[${ticketNumber}]`) ? subject : `[${ticketNumber}] ${subject}`;
}

/**
 * A Message-ID for one outgoing mail of a comment. It holds a random part so nobody can guess the
 * ids of a ticket's mail; the caller stores it before sending and reuses it on retries.
 */
export function outboundMessageId(
  ticketId: number,
  commentId: number,
  domain: string,
  random: () => string = () => randomBytes(8).toString('hex'),
): string {
  return `<tix.${ticketId}.${commentId}.${random()}@${domain}>`;
}
