/**
 * One inbound message becomes a ticket, a comment or a recorded no (docs/mail.md): parse with
 * limits, decide the thread, then act through the peers as the mail service's system user, and
 * answer what the final transaction must write (finish.ts). Every write to a peer is idempotent for
 * this message: CreateTicket / CreateComment carry source_ref `mail:<inbound id>` (a repeat answers
 * the first one), a ticket update sets a status and a cc that are the same on a retry, and uploaded
 * attachments are remembered in the row's progress. So a crash anywhere before the final
 * transaction only repeats work, it never duplicates it.
 */
import type pg from 'pg';
import type * as grpc from '@grpc/grpc-js';
import { AppError, fromGrpcError, type Logger, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { COMMENT_LIMITS, TICKET_LIMITS, type attachment, type TicketJson } from '@tix/protos';
import {
  attachmentImageSrc,
  decideThread,
  isRefusal,
  mayAutoReply,
  oneLine,
  parseInbound,
  replyHtml,
  type AuthResult,
  type LinkReason,
  type ParsedInbound,
  type ThreadDecision,
} from '@tix/threading';
import {
  acknowledgement,
  refusal,
  type AutomaticMail,
  type RefusalReason,
} from '../automatic/automatic-mail.js';
import type { RawStore } from '../inbound/raw-store.js';
import { formatFrom, projectAddress } from '../outbound/addresses.js';
import { readSettings } from '../outbound/settings.js';
import { PermanentFailure, type Directory } from './directory.js';
import { threadFacts, type CustomersPeer, type TicketsPeer } from './facts.js';
import {
  asAuthResult,
  verifySender,
  type DnsBounds,
  type DnsResolver,
  type Envelope,
  type SenderAuth,
} from './sender-auth.js';

export type CommentsPeer = Pick<ServiceClient<'comments'>, 'CreateComment'>;
export type AttachmentsPeer = Pick<ServiceClient<'attachments'>, 'raw' | 'callMetadata' | 'callOptions'>;

/** Where a crash test stops the processor (tests only). */
/** The tag a ticket gets when mail on it failed DMARC for its From domain (docs/mail.md). */
const UNTRUSTED_TAG = 'mail-untrusted';

export type ProcessingStage = 'ticket_created' | 'comment_created';

export interface ProcessDeps {
  pool: pg.Pool;
  store: RawStore;
  tickets: TicketsPeer;
  comments: CommentsPeer;
  customers: CustomersPeer;
  attachments: AttachmentsPeer | null;
  directory: Directory;
  /** MAIL_DOMAIN. */
  domain: string;
  tokenSecret: string;
  /** Authentication-Results from these authserv-ids are trusted (the receiving relay's). */
  trustedAuthservIds: readonly string[];
  /** DNS for Tix's own SPF/DKIM/DMARC checks (sender-auth.ts), and its bounds per message. */
  resolver: DnsResolver;
  dnsBounds: DnsBounds;
  maxBytes: number;
  logger: Logger;
  /** Tests: called after each peer write (a hook that never resolves is a crash there). */
  onStage?: (stage: ProcessingStage, inboundId: string) => Promise<void>;
}

/** A claimed inbound_messages row with its mailbox. */
export interface ClaimedMessage {
  id: string;
  attempts: number;
  objectKey: string;
  projectId: number;
  mailboxAddress: string;
  defaultTicketTypeId: number | null;
  progress: Progress | null;
  /** What the SMTP listener saw (client IP, HELO, MAIL FROM); null for IMAP mail. */
  envelope: Envelope | null;
}

export interface Progress {
  /** Indexes (in ParsedInbound.attachments) already uploaded, with their attachment ids. */
  uploaded: Record<string, number>;
}

export type FinalState = 'processed' | 'ignored' | 'refused' | 'failed';

export interface Outcome {
  action: string;
  ticket_id?: number;
  comment_id?: number;
  customer_id?: number;
  linked_to?: number;
  reason?: string;
  automatic: boolean;
  from: string | null;
  /** spf, dkim, dmarc, and what else sender-auth.ts records. */
  auth: Pick<SenderAuth, 'spf' | 'dkim' | 'dmarc'> & Partial<SenderAuth>;
  untrusted?: true;
  attachments?: number[];
  attachments_refused?: { name: string; reason: string }[];
  acknowledgement?: 'queued' | 'limit' | 'not_sent';
  refusal?: 'queued' | 'limit' | 'not_sent';
  /** A bounce of a mail Tix sent: which, and why. */
  bounced?: { message_id: string; reason: string };
}

/** What the final transaction writes for a message. */
export interface Final {
  state: FinalState;
  outcome: Outcome;
  /** Message-IDs received for a ticket (direction in). */
  ticketMessages: { messageId: string; ticketId: number; commentId: number | null }[];
  automaticMail: AutomaticMail | null;
  /** A bounce whose DSN names a mail Tix sent: recorded on that outbound row. */
  bounce: ParsedInbound | null;
}

/** Only results a trusted receiving host added count (docs/mail.md, "Parsing"). */
export function trustedAuth(parsed: ParsedInbound, trusted: readonly string[]): AuthResult[] {
  const ids = new Set(trusted.map((id) => id.toLowerCase()));
  return parsed.auth.filter((result) => ids.has(result.authservId.toLowerCase()));
}

/** Tix's own checks combined with the trusted relays' results (sender-auth.ts). */
function verify(
  deps: ProcessDeps,
  row: ClaimedMessage,
  raw: Buffer,
  parsed: ParsedInbound,
): Promise<SenderAuth> {
  return verifySender(raw, row.envelope, {
    authservId: deps.domain,
    resolver: deps.resolver,
    bounds: deps.dnsBounds,
    trusted: trustedAuth(parsed, deps.trustedAuthservIds),
    authResultsHeaders: parsed.headers['authentication-results'] ?? [],
  });
}

/** At most `max` code points. */
function clip(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : points.slice(0, max).join('');
}

/** The header block of a message Tix refused to parse whole, parsed alone (for its sender). */
async function headersOnly(raw: Buffer): Promise<ParsedInbound | null> {
  const text = raw.subarray(0, 256 * 1024).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = Buffer.from(`${end < 0 ? text : text.slice(0, end)}\r\n\r\n`, 'latin1');
  const parsed = await parseInbound(head, { maxParts: 1, maxDepth: 1 });
  return isRefusal(parsed) ? null : parsed;
}

const permanentKinds = new Set(['validation_failed', 'bad_request', 'not_found', 'permission_denied']);

/** True when another attempt cannot succeed (a refusal of the request itself). */
export function isPermanent(error: unknown): boolean {
  if (error instanceof PermanentFailure) return true;
  return error instanceof AppError && permanentKinds.has(error.kind);
}

/** Uploads one file to the ticket through the attachment service's client stream. */
function upload(
  peer: AttachmentsPeer,
  context: OutgoingContext,
  header: attachment.UploadHeader,
  content: Buffer,
): Promise<attachment.Attachment__Output> {
  return new Promise((resolve, reject) => {
    const call: grpc.ClientWritableStream<attachment.UploadAttachmentRequest> = peer.raw.UploadAttachment(
      peer.callMetadata(context),
      peer.callOptions({ ...context, deadlineMs: 120_000 }),
      (error, response) => {
        if (error) reject(fromGrpcError(error));
        else if (response) resolve(response);
        else reject(AppError.internal('the upload answered without an attachment'));
      },
    );
    call.on('error', () => undefined); // reported through the callback
    call.write({ header });
    for (let offset = 0; offset < content.length; offset += 64 * 1024)
      call.write({ chunk: content.subarray(offset, offset + 64 * 1024) });
    call.end();
  });
}

/** Attachment types that are part of a report, not files the customer sent. */
const REPORT_TYPES = new Set([
  'message/delivery-status',
  'message/global-delivery-status',
  'text/rfc822-headers',
  'message/disposition-notification',
]);

export async function processMessage(deps: ProcessDeps, row: ClaimedMessage): Promise<Final> {
  const raw = await deps.store.get(row.objectKey);
  const parsed = await parseInbound(raw, { maxBytes: deps.maxBytes });
  const project = await deps.directory.project(row.projectId);
  const settings = await readSettings(deps.pool, row.projectId);
  const fromAddress = projectAddress(settings, project.slug, deps.domain);
  const sendingFrom = formatFrom(settings.fromName !== '' ? settings.fromName : project.name, fromAddress);
  const mailboxAddresses = [...new Set([row.mailboxAddress, `${project.slug}@${deps.domain}`, fromAddress])];

  if (isRefusal(parsed)) return refused(deps, row, raw, parsed.refused, { sendingFrom, mailboxAddresses });

  // What decides `untrusted` (DMARC fail) is the verified result, not the headers as sent.
  const auth = await verify(deps, row, raw, parsed);
  const message: ParsedInbound = { ...parsed, auth: [asAuthResult(auth, deps.domain)] };
  const base = {
    automatic: !mayAutoReply(message),
    from: message.from?.address ?? null,
    auth,
  };
  const principal = await deps.directory.principal();
  const context: OutgoingContext = { principal };
  const seen = new Map<number, TicketJson>();
  const facts = threadFacts(
    {
      pool: deps.pool,
      tickets: deps.tickets,
      customers: deps.customers,
      directory: deps.directory,
      context,
      projectId: row.projectId,
      mailboxAddresses,
      tokenSecret: deps.tokenSecret,
      settings: { reopenWindowDays: settings.reopenWindowDays, acceptListMail: settings.acceptListMail },
    },
    seen,
  );
  const decision: ThreadDecision = await decideThread(message, facts);
  const untrusted = 'untrusted' in decision && decision.untrusted ? { untrusted: true as const } : {};
  const none: Omit<Final, 'state' | 'outcome'> = { ticketMessages: [], automaticMail: null, bounce: null };

  if (decision.action === 'ignore') {
    return {
      ...none,
      state: 'ignored',
      outcome: {
        action: 'ignore',
        reason: decision.reason,
        ...(decision.ticketId === undefined ? {} : { ticket_id: decision.ticketId }),
        ...base,
      },
      bounce: decision.reason === 'bounce' ? message : null,
    };
  }

  const sender = message.from!;
  const sourceRef = `mail:${row.id}`;
  const findCustomers = async (addresses: { email: string; name: string }[]) => {
    if (addresses.length === 0) return new Map<string, number>();
    const { customers } = await deps.customers.FindOrCreateCustomers({ addresses }, context);
    const byEmail = new Map<string, number>();
    for (const customer of customers)
      for (const email of customer.emails) byEmail.set(email.toLowerCase(), customer.id);
    return byEmail;
  };
  const nameOf = (address: string) =>
    [message.from, ...message.to, ...message.cc].find((a) => a?.address === address)?.name ?? '';
  const visible = message.visibleText.trim();

  if (decision.action === 'new_ticket') {
    const others = decision.cc ?? [];
    const ids = await findCustomers([
      { email: sender.address, name: sender.name },
      ...others.map((email) => ({ email, name: nameOf(email) })),
    ]);
    const requesterId = ids.get(sender.address);
    if (requesterId === undefined) throw new Error(`no customer answered for ${sender.address}`);
    const cc = others.map((email) => ids.get(email)).filter((id): id is number => id !== undefined);
    const linked = decision.linkedTo === undefined ? undefined : seen.get(decision.linkedTo);
    const note = linked ? `\n\n(Opened from mail; it names ${linked.ticket_number}.)` : '';
    const description = clip(visible, TICKET_LIMITS.description - note.length) + note;
    const title = clip(oneLine(message.subject) || '(no subject)', TICKET_LIMITS.title);
    const typeId = await deps.directory.ticketType(row.projectId, row.defaultTicketTypeId);
    const answer = await deps.tickets.CreateTicket(
      {
        project_id: row.projectId,
        ticket_type_id: typeId,
        title,
        ...(description.trim() === '' ? {} : { description }),
        custom_fields_json: '',
        // A From that failed DMARC (Tix's own check, sender-auth.ts) is flagged where agents look.
        tags: untrusted.untrusted ? [UNTRUSTED_TAG] : [],
        requester_id: requesterId,
        cc,
        source_type: 'email',
        source_ref: sourceRef,
      },
      context,
    );
    const ticket = JSON.parse(answer.json.toString('utf8')) as TicketJson;
    await deps.onStage?.('ticket_created', row.id);
    const { outcome: files } = await uploadAttachments(deps, row, message, ticket.id, context);
    if (linked && decision.linkReason)
      await writeLinkNotes(deps, context, row, {
        opened: ticket,
        named: linked,
        reason: decision.linkReason,
        sender: sender.address,
        reopenWindowDays: settings.reopenWindowDays,
      });
    let ack: AutomaticMail | null = null;
    let ackState: Outcome['acknowledgement'] | undefined;
    if (settings.acknowledge) {
      if (!base.automatic && !untrusted.untrusted) {
        ack = acknowledgement({
          projectId: row.projectId,
          projectName: project.name,
          ticket: { id: ticket.id, ticketNumber: ticket.ticket_number, title: ticket.title },
          requesterName: sender.name || sender.address,
          to: sender.address,
          from: sendingFrom,
          inboundMessageId: row.id,
          customerMessageId: message.messageId,
          settings,
          domain: deps.domain,
          tokenSecret: deps.tokenSecret,
        });
      } else ackState = 'not_sent';
    }
    return {
      ...none,
      state: 'processed',
      outcome: {
        action: 'new_ticket',
        ticket_id: ticket.id,
        customer_id: requesterId,
        ...(linked ? { linked_to: linked.id } : {}),
        ...base,
        ...untrusted,
        ...files,
        ...(ackState ? { acknowledgement: ackState } : {}),
      },
      ticketMessages: message.messageId
        ? [{ messageId: message.messageId, ticketId: ticket.id, commentId: null }]
        : [],
      automaticMail: ack,
    };
  }

  // comment / reopen_and_comment on a known ticket.
  const ticket = seen.get(decision.ticketId);
  if (!ticket) throw new Error(`ticket ${decision.ticketId} was decided on but not read`);
  const machine = decision.action === 'comment' ? decision.machine : undefined;
  const addCc = machine ? [] : (decision.addCc ?? []);
  const ids = machine
    ? new Map<string, number>()
    : await findCustomers([
        { email: sender.address, name: sender.name },
        ...addCc.map((email) => ({ email, name: nameOf(email) })),
      ]);
  const customerId = ids.get(sender.address);
  const text = visible === '' ? '(no text)' : visible;
  // Files first, so the HTML can show the inline images as the attachments they became.
  const { outcome: files, uploaded } = await uploadAttachments(deps, row, message, ticket.id, context);
  const html = commentHtml(message, uploaded);
  const created = await deps.comments.CreateComment(
    machine || customerId === undefined
      ? {
          project_id: row.projectId,
          ticket_id: ticket.id,
          // An automatic answer (out of office) is useful to the agent, never to the customer.
          content: clip(
            `Automatic reply (${machine ?? 'mail'}) from ${sender.address}:\n\n${text}`,
            COMMENT_LIMITS.content,
          ),
          is_internal: true,
          source_ref: sourceRef,
        }
      : {
          project_id: row.projectId,
          ticket_id: ticket.id,
          content: clip(text, COMMENT_LIMITS.content),
          ...(html === null ? {} : { content_html: html }),
          is_internal: false,
          customer_id: customerId,
          source_ref: sourceRef,
        },
    context,
  );
  await deps.onStage?.('comment_created', row.id);

  const newCc = addCc
    .map((email) => ids.get(email))
    .filter(
      (id): id is number => id !== undefined && id !== ticket.requester_id && !(ticket.cc ?? []).includes(id),
    );
  const openStatus =
    decision.action === 'reopen_and_comment'
      ? [...project.statuses].sort((a, b) => a.position - b.position).find((status) => !status.is_closed)
          ?.slug
      : undefined;
  // A reply threaded by its headers or token whose From failed DMARC still lands (the thread is
  // strong evidence, a forwarder often breaks DMARC), but the ticket is flagged where agents look.
  const flag = untrusted.untrusted === true && !(ticket.tags ?? []).includes(UNTRUSTED_TAG);
  if (newCc.length > 0 || openStatus !== undefined || flag) {
    await deps.tickets.UpdateTicket(
      {
        project_id: row.projectId,
        id: ticket.id,
        ...(openStatus === undefined ? {} : { status: openStatus }),
        ...(newCc.length === 0 ? {} : { cc: { ids: [...new Set([...(ticket.cc ?? []), ...newCc])] } }),
        ...(flag ? { tags: { values: [...(ticket.tags ?? []), UNTRUSTED_TAG] } } : {}),
      },
      context,
    );
  }
  return {
    ...none,
    state: 'processed',
    outcome: {
      action: decision.action,
      ticket_id: ticket.id,
      comment_id: created.id,
      ...(customerId === undefined || machine ? {} : { customer_id: customerId }),
      ...(machine ? { reason: machine } : {}),
      ...base,
      ...untrusted,
      ...files,
    },
    ticketMessages: message.messageId
      ? [{ messageId: message.messageId, ticketId: ticket.id, commentId: created.id }]
      : [],
  };
}

/**
 * The comment's content_html (docs/mail.md, "Body"): the visible part of the HTML body, its inline
 * `cid:` images pointed at the attachments they were uploaded as (`uploaded`, by attachment index);
 * null for a text mail, when nothing visible is left, or past the comment limit (the text stays).
 */
function commentHtml(message: ParsedInbound, uploaded: Record<string, number>): string | null {
  const html = replyHtml(message.htmlSource, {
    imageUrl(cid) {
      const index = message.attachments.findIndex((file) => file.cid?.toLowerCase() === cid);
      const id = index < 0 ? undefined : uploaded[index];
      return id === undefined ? null : attachmentImageSrc(id);
    },
  });
  return html !== null && html.length <= COMMENT_LIMITS.contentHtml ? html : null;
}

const LINK_WHY: Record<LinkReason, (input: { sender: string; reopenWindowDays: number }) => string> = {
  stranger: ({ sender }) =>
    `its subject names the ticket, but ${sender} is neither its requester, a CC nor staff`,
  untrusted: ({ sender }) => `its subject names the ticket, but the From address ${sender} failed DMARC`,
  closed: ({ reopenWindowDays }) =>
    `the ticket was closed more than ${reopenWindowDays} days ago (the reopen window)`,
};

/**
 * When mail naming a ticket opened a new one: an internal note on each naming the other and why,
 * written as the mail system user, once each across retries (their own source_refs).
 */
async function writeLinkNotes(
  deps: ProcessDeps,
  context: OutgoingContext,
  row: ClaimedMessage,
  link: {
    opened: TicketJson;
    named: TicketJson;
    reason: LinkReason;
    sender: string;
    reopenWindowDays: number;
  },
): Promise<void> {
  const why = LINK_WHY[link.reason](link);
  const note = (ticketId: number, content: string) =>
    deps.comments.CreateComment(
      {
        project_id: row.projectId,
        ticket_id: ticketId,
        content: clip(content, COMMENT_LIMITS.content),
        is_internal: true,
        source_ref: `mail:${row.id}:link:${ticketId}`,
      },
      context,
    );
  await note(
    link.opened.id,
    `Opened from mail that names ${link.named.ticket_number}, as a new ticket linked to it: ${why}.`,
  );
  try {
    await note(
      link.named.id,
      `Mail from ${link.sender} names this ticket; it opened the new ticket ${link.opened.ticket_number} instead: ${why}.`,
    );
  } catch (error) {
    // The named ticket went away meanwhile (deleted): the new ticket and its note still stand.
    if (!isPermanent(error)) throw error;
    deps.logger.warn(
      { inbound_id: row.id, ticket_id: link.named.id, err: error },
      'the linked ticket refused the note about the new ticket',
    );
  }
}

/** Uploads the message's files (inline cid: images too) to the ticket, once each across retries. */
async function uploadAttachments(
  deps: ProcessDeps,
  row: ClaimedMessage,
  message: ParsedInbound,
  ticketId: number,
  context: OutgoingContext,
): Promise<{
  outcome: Pick<Outcome, 'attachments' | 'attachments_refused'>;
  /** Attachment ids by index in message.attachments. */
  uploaded: Record<string, number>;
}> {
  const files = message.attachments
    .map((file, index) => ({ file, index }))
    .filter(({ file }) => !REPORT_TYPES.has(file.contentType) && file.size > 0);
  if (files.length === 0 || deps.attachments === null) return { outcome: {}, uploaded: {} };
  const uploaded: Record<string, number> = { ...(row.progress?.uploaded ?? {}) };
  const refusedFiles: { name: string; reason: string }[] = [];
  for (const { file, index } of files) {
    if (uploaded[index] !== undefined) continue;
    const name = oneLine(file.filename) || (file.cid ? `inline-${file.cid}` : `attachment-${index + 1}`);
    try {
      const stored = await upload(
        deps.attachments,
        context,
        {
          project_id: row.projectId,
          ticket_id: ticketId,
          original_filename: clip(name, 255),
          declared_mime_type: file.contentType,
        },
        file.content,
      );
      uploaded[index] = stored.id;
      await deps.pool.query('UPDATE inbound_messages SET progress = $2 WHERE id = $1 AND attempts = $3', [
        row.id,
        JSON.stringify({ uploaded } satisfies Progress),
        row.attempts,
      ]);
    } catch (error) {
      // A file the attachment service refuses (type, size) is named in the outcome; the rest goes on.
      if (
        !isPermanent(error) &&
        !(error instanceof AppError && ['payload_too_large', 'unsupported_media_type'].includes(error.kind))
      )
        throw error;
      refusedFiles.push({ name, reason: (error as Error).message });
    }
  }
  return {
    outcome: {
      attachments: Object.values(uploaded),
      ...(refusedFiles.length > 0 ? { attachments_refused: refusedFiles } : {}),
    },
    uploaded,
  };
}

async function refused(
  deps: ProcessDeps,
  row: ClaimedMessage,
  raw: Buffer,
  reason: RefusalReason,
  mail: { sendingFrom: string; mailboxAddresses: string[] },
): Promise<Final> {
  const head = await headersOnly(raw);
  const auth: Outcome['auth'] = head
    ? await verify(deps, row, raw, head)
    : { spf: 'none', dkim: 'none', dmarc: 'none' };
  const from = head?.from?.address ?? null;
  const automatic = head === null || !mayAutoReply(head);
  const ownAddress = from !== null && mail.mailboxAddresses.includes(from);
  const answer =
    from !== null && !automatic && !ownAddress
      ? refusal({
          projectId: row.projectId,
          reason,
          to: from,
          from: mail.sendingFrom,
          subject: head?.subject ?? '',
          inboundMessageId: row.id,
          customerMessageId: head?.messageId ?? null,
          domain: deps.domain,
        })
      : null;
  return {
    state: 'refused',
    outcome: {
      action: 'refuse',
      reason,
      automatic,
      from,
      auth,
      ...(answer ? {} : { refusal: 'not_sent' as const }),
    },
    ticketMessages: [],
    automaticMail: answer,
    bounce: null,
  };
}
