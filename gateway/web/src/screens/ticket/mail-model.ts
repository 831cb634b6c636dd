/**
 * The mail a ticket's public replies produced (GET /tickets/{id}/mail, loaded once per ticket view),
 * pure so that it is unit-tested: grouped by comment, and each message's delivery state in words
 * (docs/mail.md, "Outbound").
 */
import type { operations } from '../../generated/api';

export type OutboundMessage =
  operations['listTicketMail']['responses'][200]['content']['application/json']['data']['messages'][number];

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
