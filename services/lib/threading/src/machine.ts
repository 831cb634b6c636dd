/**
 * Automatic mail (docs/mail.md, "Loop protection"): bounces, auto-replies, bulk and list mail.
 */
import type { ParsedInbound } from './parse.js';

export type MachineKind = 'bounce' | 'auto_reply' | 'bulk' | 'list';

const first = (p: ParsedInbound, name: string): string => (p.headers[name]?.[0] ?? '').trim();
const has = (p: ParsedInbound, name: string): boolean => (p.headers[name]?.length ?? 0) > 0;

const OOO_SUBJECT =
  /^(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|r[ée]ponse automatique|absence|respuesta autom[aá]tica|fuera de la oficina|i am (currently )?out|on vacation|vacation reply)\b|^(automatische antwort|autosvar)/i;
const BOUNCE_FROM = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;
const BOUNCE_SUBJECT =
  /^(undeliverable|undelivered mail|delivery status notification \(failure\)|mail delivery failed|returned mail|delivery failure|failure notice)/i;

export function machineKind(p: ParsedInbound): MachineKind | null {
  const ct = p.contentType;
  const reportType = /report-type\s*=\s*"?delivery-status/i.test((p.headers['content-type'] ?? []).join(' '));
  if (
    (ct === 'multipart/report' && reportType) ||
    p.attachments.some((a) => a.contentType === 'message/delivery-status')
  ) {
    return 'bounce';
  }
  if (p.from && BOUNCE_FROM.test(p.from.address) && BOUNCE_SUBJECT.test(p.subject)) return 'bounce';
  if (p.from && BOUNCE_FROM.test(p.from.address) && ct.startsWith('multipart/report')) return 'bounce';
  const autoSubmitted = first(p, 'auto-submitted').toLowerCase();
  if (autoSubmitted && !autoSubmitted.startsWith('no')) return 'auto_reply';
  if (has(p, 'x-autoreply') || has(p, 'x-autorespond') || has(p, 'x-autoresponder')) return 'auto_reply';
  const suppress = first(p, 'x-auto-response-suppress').toLowerCase();
  if (suppress && /\b(all|oof|autoreply)\b/.test(suppress)) return 'auto_reply';
  if (OOO_SUBJECT.test(p.subject)) return 'auto_reply';
  const precedence = first(p, 'precedence').toLowerCase();
  if (precedence === 'auto_reply') return 'auto_reply';
  if (precedence === 'bulk' || precedence === 'junk') return 'bulk';
  if (precedence === 'list' || has(p, 'list-id') || has(p, 'list-unsubscribe')) return 'list';
  if (has(p, 'x-loop')) return 'auto_reply';
  return null;
}

/**
 * RFC 3834 section 2: never answer automatic, bulk or list mail, mail without a usable sender, or
 * mail from a no-reply / daemon address. The caller adds the per-sender rate limit.
 */
export function mayAutoReply(p: ParsedInbound): boolean {
  if (machineKind(p) !== null) return false;
  if (!p.from) return false;
  if (/^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?)([+-][^@]*)?@/i.test(p.from.address))
    return false;
  if (has(p, 'x-loop') || has(p, 'list-post')) return false;
  const returnPath = first(p, 'return-path');
  if (returnPath === '<>') return false;
  return true;
}
