/**
 * `decideThread`: which ticket an inbound message belongs to (docs/mail.md, "Threading rules").
 * Evidence in order: References/In-Reply-To against Message-IDs Tix knows > a signed token or
 * plus-address > the subject tag `[PREFIX-n]` (weak: only for the requester, a CC or staff).
 */
import type { ParsedInbound } from './parse.js';
import { machineKind, type MachineKind } from './machine.js';
import { parseSubjectTags, readToken } from './tokens.js';

type Awaitable<T> = T | Promise<T>;

export interface TicketFacts {
  id: number;
  status: string;
  /** Whether the status is terminal; defaults to `status === 'closed'`. */
  closed?: boolean;
  closedAt: Date | null;
  mergedInto: number | null;
  requesterEmails: string[];
  ccEmails: string[];
}

export interface ThreadFacts {
  now: Date;
  tokenSecret: string;
  /** Addresses of the receiving mailbox (slug@domain); mail from them is a loop. */
  mailboxAddresses: string[];
  /** The ticket each known Message-ID (with angle brackets) belongs to; absent ids are unknown. */
  ticketsByMessageId(ids: string[]): Awaitable<Map<string, number>>;
  /** Message-IDs Tix itself sent: a copy of its own mail coming back is ignored. */
  isOwnMessageId?(id: string): Awaitable<boolean>;
  ticketByNumber(prefix: string, number: number): Awaitable<number | null>;
  ticket(id: number): Awaitable<TicketFacts | null>;
  isStaff(email: string): Awaitable<boolean>;
  settings: { reopenWindowDays: number; acceptListMail: boolean };
}

export type IgnoreReason = MachineKind | 'no_sender' | 'loop' | 'own_mail' | 'machine_on_closed';

/**
 * Why a message naming a ticket opens a new one linked to it: a subject tag alone from a sender who
 * is not on the ticket (`stranger`) or whose From failed DMARC (`untrusted`), or a reply to a
 * ticket closed longer than the reopen window (`closed`).
 */
export type LinkReason = 'stranger' | 'untrusted' | 'closed';

export type ThreadDecision =
  | { action: 'comment'; ticketId: number; addCc?: string[]; machine?: MachineKind; untrusted?: true }
  | { action: 'reopen_and_comment'; ticketId: number; addCc?: string[]; untrusted?: true }
  | { action: 'new_ticket'; linkedTo?: number; linkReason?: LinkReason; cc?: string[]; untrusted?: true }
  | { action: 'ignore'; reason: IgnoreReason; ticketId?: number };

const MAX_MERGE_HOPS = 20;

async function resolveMerged(facts: ThreadFacts, id: number): Promise<TicketFacts | null> {
  const seen = new Set<number>();
  let ticket = await facts.ticket(id);
  while (ticket && ticket.mergedInto !== null && !seen.has(ticket.id) && seen.size < MAX_MERGE_HOPS) {
    seen.add(ticket.id);
    const next = await facts.ticket(ticket.mergedInto);
    if (!next) break;
    ticket = next;
  }
  return ticket;
}

/** True when DMARC was evaluated and failed for the From domain. */
export function failsDmarc(p: ParsedInbound): boolean {
  return p.auth.some((a) => a.dmarc === 'fail');
}

async function threadByHeaders(p: ParsedInbound, facts: ThreadFacts): Promise<number | null> {
  // Newest first: In-Reply-To, then References from the end (Outlook may rewrite In-Reply-To).
  const chain = [...(p.inReplyTo ? [p.inReplyTo] : []), ...[...p.references].reverse()];
  const unique = [...new Set(chain)].slice(0, 100);
  if (unique.length === 0) return null;
  const known = await facts.ticketsByMessageId(unique);
  for (const id of unique) {
    const ticket = known.get(id);
    if (ticket !== undefined) return ticket;
  }
  return null;
}

function threadByToken(p: ParsedInbound, facts: ThreadFacts): number | null {
  for (const a of [...p.to, ...p.cc]) {
    const id = readToken(a.address, facts.tokenSecret);
    if (id !== null) return id;
  }
  return readToken(`${p.text}\n${p.html ?? ''}`, facts.tokenSecret);
}

/** A DSN names the bounced mail in its returned headers: the ticket of that Message-ID. */
async function bouncedTicket(p: ParsedInbound, facts: ThreadFacts): Promise<TicketFacts | null> {
  const returned = p.attachments.filter((a) =>
    ['text/rfc822-headers', 'message/rfc822', 'message/global-headers'].includes(a.contentType),
  );
  const ids = returned
    .map(
      (a) => /^message-id:\s*(<[^<>\s]+>)/im.exec(a.content.subarray(0, 64 * 1024).toString('latin1'))?.[1],
    )
    .filter((id): id is string => id !== undefined);
  if (ids.length === 0) return null;
  const known = await facts.ticketsByMessageId(ids);
  for (const id of ids) {
    const ticketId = known.get(id);
    if (ticketId !== undefined) return resolveMerged(facts, ticketId);
  }
  return null;
}

export async function decideThread(p: ParsedInbound, facts: ThreadFacts): Promise<ThreadDecision> {
  if (!p.from) return { action: 'ignore', reason: 'no_sender' };
  const mailboxes = new Set(facts.mailboxAddresses.map((a) => a.toLowerCase()));
  const sender = p.from.address;
  if (mailboxes.has(sender)) return { action: 'ignore', reason: 'loop' };
  if (p.messageId && facts.isOwnMessageId && (await facts.isOwnMessageId(p.messageId))) {
    return { action: 'ignore', reason: 'own_mail' };
  }
  let machine = machineKind(p);
  if (machine === 'list' && facts.settings.acceptListMail) machine = null;
  const untrusted = failsDmarc(p);

  let strongId = await threadByHeaders(p, facts);
  if (strongId === null) strongId = threadByToken(p, facts);
  let weak = false;
  let ticketId = strongId;
  if (ticketId === null) {
    for (const tag of parseSubjectTags(p.subject)) {
      const found = await facts.ticketByNumber(tag.prefix, tag.number);
      if (found !== null) {
        ticketId = found;
        weak = true;
        break;
      }
    }
  }
  const ticket = ticketId === null ? null : await resolveMerged(facts, ticketId);

  if (machine === 'bounce') {
    const bounced = ticket ?? (await bouncedTicket(p, facts));
    return { action: 'ignore', reason: 'bounce', ...(bounced ? { ticketId: bounced.id } : {}) };
  }

  const cc = async (t: TicketFacts | null): Promise<string[]> => {
    const known = new Set(
      [...(t?.requesterEmails ?? []), ...(t?.ccEmails ?? [])].map((e) => e.toLowerCase()),
    );
    const out: string[] = [];
    for (const a of [p.from!, ...p.to, ...p.cc]) {
      const addr = a.address;
      if (known.has(addr) || mailboxes.has(addr) || out.includes(addr)) continue;
      if (/^[^@]+\+[^@]*@/.test(addr) && mailboxes.has(addr.replace(/\+[^@]*@/, '@'))) continue;
      if (await facts.isStaff(addr)) continue;
      out.push(addr);
    }
    return out;
  };
  const flag = untrusted ? { untrusted: true as const } : {};

  if (!ticket) {
    if (machine) return { action: 'ignore', reason: machine };
    const others = (await cc(null)).filter((a) => a !== sender);
    return { action: 'new_ticket', ...(others.length ? { cc: others } : {}), ...flag };
  }

  const isParticipant =
    ticket.requesterEmails.some((e) => e.toLowerCase() === sender) ||
    ticket.ccEmails.some((e) => e.toLowerCase() === sender) ||
    (await facts.isStaff(sender));

  // A subject tag alone from a stranger (or a sender whose From fails DMARC) is not enough.
  if (weak && (!isParticipant || untrusted)) {
    if (machine) return { action: 'ignore', reason: machine, ticketId: ticket.id };
    const others = (await cc(null)).filter((a) => a !== sender);
    const linkReason: LinkReason = isParticipant ? 'untrusted' : 'stranger';
    return {
      action: 'new_ticket',
      linkedTo: ticket.id,
      linkReason,
      ...(others.length ? { cc: others } : {}),
      ...flag,
    };
  }

  const closed = ticket.closed ?? ticket.status === 'closed';
  if (machine) {
    if (closed) return { action: 'ignore', reason: 'machine_on_closed', ticketId: ticket.id };
    return { action: 'comment', ticketId: ticket.id, machine };
  }
  const addCc = await cc(ticket);
  const extra = addCc.length ? { addCc } : {};
  if (!closed) return { action: 'comment', ticketId: ticket.id, ...extra, ...flag };
  const windowMs = facts.settings.reopenWindowDays * 86_400_000;
  const closedAt = ticket.closedAt?.getTime() ?? 0;
  if (ticket.closedAt && facts.now.getTime() - closedAt <= windowMs) {
    return { action: 'reopen_and_comment', ticketId: ticket.id, ...extra, ...flag };
  }
  const others = (await cc(null)).filter((a) => a !== sender);
  return {
    action: 'new_ticket',
    linkedTo: ticket.id,
    linkReason: 'closed',
    ...(others.length ? { cc: others } : {}),
    ...flag,
  };
}
