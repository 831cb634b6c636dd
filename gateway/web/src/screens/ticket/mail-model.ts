/**
 * The mail a ticket's public replies produced and the mail it received (GET /tickets/{id}/mail,
 * loaded once per ticket view), pure so that it is unit-tested: grouped by comment, each sent
 * message's delivery state in words (docs/mail.md, "Outbound"), and each received one's sender
 * checks (docs/mail.md, "Sender authentication"; worded by ../../sender-checks.ts).
 */
import type { operations } from '../../generated/api';
import { senderChecks, type SenderChecks } from '../../sender-checks';

type TicketMail = operations['listTicketMail']['responses'][200]['content']['application/json']['data'];
export type OutboundMessage = TicketMail['messages'][number];
export type ReceivedMessage = TicketMail['received'][number];

/** What the ticket screen keeps of a ticket's mail. */
export interface TicketMailView {
  /** The mail each comment produced. */
  sent: Map<number, OutboundMessage[]>;
  /** The sender checks of the mail each comment came from. */
  received: Map<number, ReceivedChecks>;
  /** The sender checks of the mail that opened the ticket, when one did. */
  opening: ReceivedChecks | null;
}

export interface ReceivedChecks extends SenderChecks {
  /** The From address the mail service read, when it recorded one. */
  from: string | null;
}

function checksOf(message: ReceivedMessage): ReceivedChecks | null {
  const checks = senderChecks(message.outcome);
  if (!checks) return null;
  const from = message.outcome?.from;
  return { ...checks, from: typeof from === 'string' && from !== '' ? from : null };
}

/** The ticket's mail as the thread shows it: sent mail and received checks by comment. */
export function ticketMailView(mail: Pick<TicketMail, 'messages' | 'received'>): TicketMailView {
  const received = new Map<number, ReceivedChecks>();
  let opening: ReceivedChecks | null = null;
  for (const message of mail.received) {
    const checks = checksOf(message);
    if (!checks) continue;
    const commentId = message.outcome?.comment_id;
    if (typeof commentId === 'number' && Number.isInteger(commentId) && commentId > 0)
      received.set(commentId, checks);
    else if (message.outcome?.action === 'new_ticket' && opening === null) opening = checks;
  }
  return { sent: mailByComment(mail.messages), received, opening };
}

/** The messages of each comment, oldest first (acknowledgements carry no comment and are left out). */
export function mailByComment(messages: readonly OutboundMessage[]): Map<number, OutboundMessage[]> {
  const byComment = new Map<number, OutboundMessage[]>();
  for (const message of messages) {
    if (message.comment_id === null) continue;
    const list = byComment.get(message.comment_id) ?? [];
    list.push(message);
    byComment.set(message.comment_id, list);
  }
  return byComment;
}

export interface Delivery {
  /** sent, failed, bounced or queued: what the screen styles. */
  tone: 'sent' | 'failed' | 'bounced' | 'queued';
  label: string;
  reason: string | null;
}

/** One message's state: queued and sending read "Queued"; a suppressed one failed on purpose. */
export function delivery(message: Pick<OutboundMessage, 'state' | 'last_error' | 'bounce_reason'>): Delivery {
  switch (message.state) {
    case 'sent':
      return { tone: 'sent', label: 'Sent', reason: null };
    case 'bounced':
      return { tone: 'bounced', label: 'Bounced', reason: message.bounce_reason };
    case 'failed':
      return { tone: 'failed', label: 'Failed', reason: message.last_error };
    case 'suppressed':
      return { tone: 'failed', label: 'Not sent', reason: message.last_error ?? 'suppressed' };
    default:
      return {
        tone: 'queued',
        label: 'Queued',
        reason: message.last_error ? `retrying: ${message.last_error}` : null,
      };
  }
}

/** The recipients in one line: To first, then CC marked as such. */
export function recipients(message: Pick<OutboundMessage, 'to' | 'cc'>): string {
  return [...message.to, ...message.cc.map((address) => `${address} (CC)`)].join(', ');
}
