/**
 * A public staff comment becomes one queued mail (docs/mail.md, "Outbound"): the requester in To,
 * the CCs in Cc, `Re: [PREFIX-n] title`, In-Reply-To the ticket's latest message, References its
 * whole chain, the comment's text with the project's signature and the token footer. The outbox row
 * and the ticket_messages row of its Message-ID are written in one transaction; comment_id is unique,
 * so a redelivered comment.created queues nothing more.
 */
import type pg from 'pg';
import { AppError, inTransaction, type Logger, type ServiceClient } from '@tix/kit';
import type { CommentJson, DomainEvent, TicketJson } from '@tix/protos';
import { outboundMessageId, tagSubject, tokenFooter } from '@tix/threading';
import { formatFrom, projectAddress } from './addresses.js';
import { readSettings } from './settings.js';
import type { SystemCaller } from './system-caller.js';

/** comment.created's data: the API comment, plus author_type and customer_id (additive). */
export type CommentEventData = CommentJson & { author_type?: string; customer_id?: number | null };

export interface ReplyDeps {
  pool: pg.Pool;
  tickets: Pick<ServiceClient<'tickets'>, 'GetTicket'>;
  customers: Pick<ServiceClient<'customers'>, 'BatchGetCustomers'>;
  lookup: Pick<ServiceClient<'lookup'>, 'ResolveProject'>;
  caller: SystemCaller;
  /** MAIL_DOMAIN: Message-IDs and the default from-address <slug>@domain. */
  domain: string;
  tokenSecret: string;
  logger: Logger;
  /** Called after a row was queued (wakes the sender). */
  onQueued?: () => void;
}

export type ReplyOutcome =
  | { queued: true; id: string; messageId: string }
  | {
      queued: false;
      reason: 'internal' | 'customer_author' | 'duplicate' | 'no_ticket' | 'no_requester' | 'no_address';
    };

/** Longest References header kept: the first id (the thread's root) and the newest ones. */
const MAX_REFERENCES = 50;

function trimReferences(chain: string[]): string[] {
  if (chain.length <= MAX_REFERENCES) return chain;
  return [chain[0]!, ...chain.slice(chain.length - (MAX_REFERENCES - 1))];
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** The mail's text: the comment, the signature after the `-- ` separator, the token footer. */
export function replyText(content: string, signature: string, footer: string): string {
  const parts = [content.trimEnd()];
  if (signature.trim() !== '') parts.push(`-- \n${signature.trimEnd()}`);
  parts.push(footer);
  return parts.join('\n\n');
}

/** The HTML part (only for a comment with content_html, already sanitised by the comment service). */
export function replyHtml(contentHtml: string, signature: string, footer: string): string {
  const signatureHtml =
    signature.trim() === ''
      ? ''
      : `<div class="tix-signature">-- <br>${escapeHtml(signature.trimEnd()).replace(/\n/g, '<br>')}</div>`;
  return `<div>${contentHtml}</div>${signatureHtml}<p style="color:#888;font-size:small">${escapeHtml(footer)}</p>`;
}

const notFound = (error: unknown) => error instanceof AppError && error.kind === 'not_found';

/** Queues the reply mail of one comment.created, or says why there is none. */
export async function queueReply(
  deps: ReplyDeps,
  event: DomainEvent<CommentEventData>,
): Promise<ReplyOutcome> {
  const comment = event.data;
  if (comment.is_internal) return { queued: false, reason: 'internal' };
  if (comment.author_type === 'customer') return { queued: false, reason: 'customer_author' };
  const projectId = event.project_id;
  if (projectId === undefined) return { queued: false, reason: 'no_ticket' };
  const existing = await deps.pool.query('SELECT 1 FROM outbound_messages WHERE comment_id = $1', [
    comment.id,
  ]);
  if (existing.rowCount) return { queued: false, reason: 'duplicate' };

  const context = { principal: await deps.caller.principal() };
  let ticket: TicketJson;
  try {
    const answer = await deps.tickets.GetTicket({ project_id: projectId, id: comment.ticket_id }, context);
    ticket = JSON.parse(answer.json.toString('utf8')) as TicketJson;
  } catch (error) {
    if (notFound(error)) return { queued: false, reason: 'no_ticket' };
    throw error;
  }
  if (ticket.requester_id === null || ticket.requester_id === undefined)
    return { queued: false, reason: 'no_requester' };

  const ids = [ticket.requester_id, ...(ticket.cc ?? []).filter((id) => id !== ticket.requester_id)];
  const { customers } = await deps.customers.BatchGetCustomers({ ids }, context);
  const primary = new Map(
    customers
      .filter((customer) => !customer.deleted && customer.emails.length > 0)
      .map((customer) => [customer.id, customer.emails[0]!.toLowerCase()]),
  );
  const to = primary.get(ticket.requester_id);
  if (to === undefined) return { queued: false, reason: 'no_address' };
  const cc = [
    ...new Set(
      ids
        .slice(1)
        .map((id) => primary.get(id))
        .filter((address): address is string => address !== undefined && address !== to),
    ),
  ];

  const project = await deps.lookup.ResolveProject({ id: projectId }, context);
  const settings = await readSettings(deps.pool, projectId);
  const fromAddress = projectAddress(settings, project.slug, deps.domain);
  const from = formatFrom(settings.fromName !== '' ? settings.fromName : project.name, fromAddress);
  const footer = tokenFooter(ticket.id, deps.tokenSecret);
  const messageId = outboundMessageId(ticket.id, comment.id, deps.domain);
  const subject = `Re: ${tagSubject(ticket.title, ticket.ticket_number)}`;
  const text = replyText(comment.content, settings.signature, footer);
  const html =
    comment.content_html === null || comment.content_html === undefined
      ? null
      : replyHtml(comment.content_html, settings.signature, footer);

  const queued = await inTransaction(deps.pool, async (client) => {
    const { rows: chainRows } = await client.query<{ message_id: string }>(
      'SELECT message_id FROM ticket_messages WHERE ticket_id = $1 ORDER BY created_at, message_id',
      [ticket.id],
    );
    const chain = trimReferences(chainRows.map((row) => row.message_id));
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO outbound_messages (kind, project_id, ticket_id, comment_id, message_id, from_address,
          to_addresses, cc_addresses, subject, text, html, in_reply_to, "references", automatic)
       VALUES ('reply', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, false)
       ON CONFLICT (comment_id) DO NOTHING RETURNING id`,
      [
        projectId,
        ticket.id,
        comment.id,
        messageId,
        from,
        [to],
        cc,
        subject,
        text,
        html,
        chainRows.at(-1)?.message_id ?? null,
        chain,
      ],
    );
    if (!rows[0]) return null;
    await client.query(
      `INSERT INTO ticket_messages (message_id, ticket_id, project_id, direction, comment_id)
       VALUES ($1, $2, $3, 'out', $4)`,
      [messageId, ticket.id, projectId, comment.id],
    );
    return rows[0].id;
  });
  if (queued === null) return { queued: false, reason: 'duplicate' };
  deps.logger.info(
    { outbound_id: queued, ticket_id: ticket.id, comment_id: comment.id },
    'reply mail queued',
  );
  deps.onQueued?.();
  return { queued: true, id: queued, messageId };
}
