/**
 * `parseInbound`: one raw message to plain data, or a typed refusal, never a throw (docs/mail.md).
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { sanitizeCommentHtml } from '@tix/sanitize-html';
import { checkLimits, DEFAULT_LIMITS, type ParseLimits, type Refusal } from './limits.js';
import { visibleReply } from './quotes.js';

export interface Address {
  /** Lower-cased, trimmed. */
  address: string;
  /** Display name, CR/LF and control characters removed. */
  name: string;
}

export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
  size: number;
  /** Content-ID without angle brackets, for inline `cid:` images. */
  cid: string | null;
  inline: boolean;
}

export interface AuthResult {
  authservId: string;
  spf: string | null;
  dkim: string | null;
  dmarc: string | null;
}

export interface ParsedInbound {
  from: Address | null;
  to: Address[];
  cc: Address[];
  replyTo: Address[];
  subject: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  /** Lower-cased header name -> every value as text (CR/LF removed). */
  headers: Record<string, string[]>;
  contentType: string;
  auth: AuthResult[];
  text: string;
  /** The HTML body, sanitised whole (quoted history included). */
  html: string | null;
  /** The HTML body as sent, unsanitised: only for replyHtml (html.ts), which sanitises it. */
  htmlSource: string | null;
  visibleText: string;
  attachments: Attachment[];
}

/** Control characters (CR, LF, NUL, ...) out of a single-line value. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

function normaliseAddresses(value: AddressObject | AddressObject[] | undefined): Address[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const out: Address[] = [];
  const seen = new Set<string>();
  const walk = (entries: AddressObject['value']): void => {
    for (const e of entries) {
      if (e.group) walk(e.group);
      const address = oneLine(e.address ?? '').toLowerCase();
      if (!address || !/^[^\s@]+@[^\s@]+$/.test(address) || seen.has(address)) continue;
      seen.add(address);
      out.push({ address, name: oneLine(e.name ?? '') });
    }
  };
  for (const obj of list) walk(obj.value);
  return out;
}

function ids(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(' ') : (value ?? '');
  return [...text.matchAll(/<?([^<>\s,]+@[^<>\s,]+)>?/g)].map((m) => `<${m[1]}>`);
}

function headerText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(headerText).join(', ');
  if (typeof value === 'object' && 'value' in value) {
    const v = value as { value: unknown; params?: Record<string, string>; text?: string };
    if (typeof v.text === 'string') return v.text;
    const params = v.params ? Object.entries(v.params).map(([k, p]) => `; ${k}=${p}`) : [];
    return `${headerText(v.value)}${params.join('')}`;
  }
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

function parseAuthResults(values: string[]): AuthResult[] {
  return values.map((v) => {
    const authservId = oneLine(v.split(';')[0] ?? '').split(/\s+/)[0] ?? '';
    const pick = (method: string): string | null => {
      const m = new RegExp(`\\b${method}\\s*=\\s*([a-z]+)`, 'i').exec(v);
      return m ? (m[1] ?? '').toLowerCase() : null;
    };
    return {
      authservId: authservId.toLowerCase(),
      spf: pick('spf'),
      dkim: pick('dkim'),
      dmarc: pick('dmarc'),
    };
  });
}

function toParsed(mail: ParsedMail, raw: Buffer): ParsedInbound {
  const headers: Record<string, string[]> = {};
  for (const line of mail.headerLines ?? []) {
    const name = line.key.toLowerCase();
    const value = oneLine(line.line.slice(line.line.indexOf(':') + 1));
    (headers[name] ??= []).push(value);
  }
  // Decoded values (RFC 2047) for the headers mailparser decodes.
  for (const [key, value] of mail.headers) {
    if (key === 'subject' || key.startsWith('x-') || key === 'auto-submitted' || key === 'precedence') {
      headers[key] = [oneLine(headerText(value))];
    }
  }
  const text = (mail.text ?? '').replace(/\r\n?/g, '\n');
  const attachments: Attachment[] = (mail.attachments ?? []).map((a) => ({
    filename:
      oneLine(a.filename ?? '') || (a.contentType === 'message/rfc822' ? 'message.eml' : 'attachment'),
    contentType: (a.contentType ?? 'application/octet-stream').toLowerCase(),
    content: a.content,
    size: a.size ?? a.content?.length ?? 0,
    cid: a.cid ? a.cid.replace(/^<|>$/g, '') : a.contentId ? a.contentId.replace(/^<|>$/g, '') : null,
    inline: a.contentDisposition === 'inline' || Boolean(a.related),
  }));
  const topType = /^content-type:\s*([^;\s]+)/im.exec(
    raw
      .subarray(0, 64 * 1024)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? '',
  );
  return {
    from: normaliseAddresses(mail.from)[0] ?? null,
    to: normaliseAddresses(mail.to),
    cc: normaliseAddresses(mail.cc),
    replyTo: normaliseAddresses(mail.replyTo),
    subject: oneLine(mail.subject ?? ''),
    messageId: ids(mail.messageId)[0] ?? null,
    inReplyTo: ids(mail.inReplyTo)[0] ?? null,
    references: ids(mail.references),
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
    headers,
    contentType: (topType?.[1] ?? 'text/plain').toLowerCase(),
    auth: parseAuthResults(headers['authentication-results'] ?? []),
    text,
    html: typeof mail.html === 'string' ? sanitizeCommentHtml(mail.html) : null,
    htmlSource: typeof mail.html === 'string' ? mail.html : null,
    visibleText: visibleReply(text),
    attachments,
  };
}

/** The parsed message, or `{ refused }` when it breaks a limit or cannot be parsed. Never throws. */
export async function parseInbound(
  raw: Buffer,
  limits: Partial<ParseLimits> = {},
): Promise<ParsedInbound | Refusal> {
  const all = { ...DEFAULT_LIMITS, ...limits };
  try {
    if (!Buffer.isBuffer(raw) || raw.length === 0) return { refused: 'unparseable' };
    // A message starts with a header field (RFC 5322 field-name, then a colon).
    if (!/^(From [^\n]*\n)?[!-9;-~]+:/.test(raw.subarray(0, 1000).toString('latin1')))
      return { refused: 'unparseable' };
    const refusal = checkLimits(raw, all);
    if (refusal) return refusal;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), all.timeoutMs);
    });
    const mail = await Promise.race([
      simpleParser(raw, { skipImageLinks: true, skipTextLinks: true, maxHtmlLengthToParse: 2 * 1024 * 1024 }),
      timeout,
    ]).finally(() => clearTimeout(timer));
    if (mail === 'timeout') return { refused: 'unparseable' };
    if (!mail.headerLines || mail.headerLines.length === 0) return { refused: 'unparseable' };
    return toParsed(mail, raw);
  } catch {
    return { refused: 'unparseable' };
  }
}

export function isRefusal(value: ParsedInbound | Refusal): value is Refusal {
  return 'refused' in value;
}
