/**
 * The automatic mails the inbound processor queues (docs/mail.md, "Loop protection"): the
 * acknowledgement of a new ticket and the polite refusal of a message Tix could not take. Both are
 * `automatic` outbox rows (the sender adds `Auto-Submitted: auto-replied` and applies the per-sender
 * limit when it claims them, outbound/auto-reply-limit.ts); here they are only composed and queued,
 * never for a message that is itself automatic (mayAutoReply) and not when the limit is already
 * reached for the address (autoReplyAllowed), so nothing is queued only to be suppressed.
 */
import type pg from 'pg';
import { outboundMessageId, tagSubject, tokenFooter } from '@tix/threading';
import { autoReplyAllowed } from '../outbound/auto-reply-limit.js';

type Queryable = Pick<pg.PoolClient, 'query'>;

/** One automatic mail to queue, composed before the final transaction. */
export interface AutomaticMail {
  kind: 'acknowledgement' | 'refusal';
  projectId: number;
  ticketId: number | null;
  inboundMessageId: string;
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  inReplyTo: string | null;
  references: string[];
}

export type RefusalReason = 'too_large' | 'too_many_parts' | 'too_deep' | 'unparseable';

const REFUSAL_TEXT: Record<RefusalReason, string> = {
  too_large:
    'it is larger than we can accept. Please send it again without the largest attachments, or share them as links',
  too_many_parts: 'it has more parts than we can accept. Please send it again with fewer attachments',
  too_deep: 'it nests more parts inside each other than we can read. Please send it again as a plain message',
  unparseable: 'we could not read it. Please send it again as a plain message',
};

/** Replaces {{ticket.number}}, {{ticket.title}}, {{requester.name}} and {{project.name}}. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*([a-z]+\.[a-z]+)\s*\}\}/g, (whole, name: string) => values[name] ?? whole);
}

export interface AcknowledgementInput {
  projectId: number;
  projectName: string;
  ticket: { id: number; ticketNumber: string; title: string };
  requesterName: string;
  to: string;
  from: string;
  inboundMessageId: string;
  customerMessageId: string | null;
  settings: { ackSubject: string; ackBody: string };
  domain: string;
  tokenSecret: string;
}

export function acknowledgement(input: AcknowledgementInput): AutomaticMail {
  const values = {
    'ticket.number': input.ticket.ticketNumber,
    'ticket.title': input.ticket.title,
    'requester.name': input.requesterName,
    'project.name': input.projectName,
  };
  const subject =
    input.settings.ackSubject.trim() === ''
      ? `We received your request: ${input.ticket.title}`
      : renderTemplate(input.settings.ackSubject, values);
  const body =
    input.settings.ackBody.trim() === ''
      ? `Hello ${input.requesterName},\n\nthank you for writing to ${input.projectName}. Your request is ` +
        `${input.ticket.ticketNumber}; we will answer as soon as we can. To add to it, reply to this mail.`
      : renderTemplate(input.settings.ackBody, values);
  return {
    kind: 'acknowledgement',
    projectId: input.projectId,
    ticketId: input.ticket.id,
    inboundMessageId: input.inboundMessageId,
    messageId: outboundMessageId(input.ticket.id, 0, input.domain),
    from: input.from,
    to: input.to,
    subject: tagSubject(subject, input.ticket.ticketNumber),
    text: `${body.trimEnd()}\n\n${tokenFooter(input.ticket.id, input.tokenSecret)}`,
    inReplyTo: input.customerMessageId,
    references: input.customerMessageId ? [input.customerMessageId] : [],
  };
}

export interface RefusalInput {
  projectId: number;
  reason: RefusalReason;
  to: string;
  from: string;
  subject: string;
  inboundMessageId: string;
  customerMessageId: string | null;
  domain: string;
}

export function refusal(input: RefusalInput): AutomaticMail {
  const original = input.subject.trim() === '' ? 'your message' : `your message "${input.subject.trim()}"`;
  return {
    kind: 'refusal',
    projectId: input.projectId,
    ticketId: null,
    inboundMessageId: input.inboundMessageId,
    messageId: outboundMessageId(0, 0, input.domain),
    from: input.from,
    to: input.to,
    subject: `Not delivered: ${input.subject.trim() === '' ? '(no subject)' : input.subject.trim()}`.slice(
      0,
      500,
    ),
    text:
      `Hello,\n\nwe could not open a request from ${original}: ${REFUSAL_TEXT[input.reason]}.\n\n` +
      'This is an automatic reply.',
    inReplyTo: input.customerMessageId,
    references: input.customerMessageId ? [input.customerMessageId] : [],
  };
}

/**
 * Queues the mail inside the caller's transaction, unless the per-sender limit is already reached.
 * Unique per (kind, inbound message): a retried message queues nothing more. Answers whether a row
 * was queued now. An acknowledgement's Message-ID is recorded in ticket_messages, so a reply to it
 * threads onto the ticket.
 */
export async function queueAutomaticMail(
  client: Queryable,
  mail: AutomaticMail,
  limit?: { max: number; windowMs: number },
): Promise<{ queued: boolean; reason?: 'limit' | 'duplicate' }> {
  if (!(await autoReplyAllowed(client, [mail.to], limit))) return { queued: false, reason: 'limit' };
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO outbound_messages (kind, project_id, ticket_id, inbound_message_id, message_id, from_address,
        to_addresses, subject, text, in_reply_to, "references", automatic)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, true)
     ON CONFLICT DO NOTHING RETURNING id`,
    [
      mail.kind,
      mail.projectId,
      mail.ticketId,
      mail.inboundMessageId,
      mail.messageId,
      mail.from,
      [mail.to],
      mail.subject,
      mail.text,
      mail.inReplyTo,
      mail.references,
    ],
  );
  if (!rows[0]) return { queued: false, reason: 'duplicate' };
  if (mail.ticketId !== null)
    await client.query(
      `INSERT INTO ticket_messages (message_id, ticket_id, project_id, direction)
       VALUES ($1, $2, $3, 'out') ON CONFLICT DO NOTHING`,
      [mail.messageId, mail.ticketId, mail.projectId],
    );
  return { queued: true };
}
