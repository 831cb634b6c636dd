/**
 * The mailbox screen's wording (mailboxes.tsx), pure so that it is unit-tested: a mailbox's status,
 * what a connection test answered, and what processing decided for a received message (its
 * `outcome` is an open object: action, ticket_id, comment_id, reason, auth results; the sender
 * checks are worded by ../../sender-checks.ts, as on the ticket).
 */
import type { operations } from '../../generated/api';

export type Mailbox =
  operations['listMailboxes']['responses'][200]['content']['application/json']['data']['mailboxes'][number];
export type MailboxMessage =
  operations['listMailboxMessages']['responses'][200]['content']['application/json']['data']['messages'][number];
export type TestResult =
  operations['testMailbox']['responses'][200]['content']['application/json']['data']['result'];

/** "Paused" over everything; else the service's status in words. */
export function mailboxStatus(mailbox: Pick<Mailbox, 'paused' | 'status'>): string {
  if (mailbox.paused) return 'Paused';
  if (mailbox.status === 'connected') return 'Connected';
  if (mailbox.status === 'error') return 'Error';
  return mailbox.status === 'idle' ? 'Idle' : mailbox.status;
}

/** One sentence for the result of "Test connection". */
export function testSummary(mailbox: Pick<Mailbox, 'address' | 'kind'>, result: TestResult): string {
  if (!result.ok) return `Testing ${mailbox.address} failed: ${result.error ?? 'no reason given'}.`;
  if (mailbox.kind === 'smtp') return `${mailbox.address} is ready: the SMTP listener accepts its mail.`;
  const count = result.message_count;
  const inbox = count === null ? '' : `: ${count} ${count === 1 ? 'message' : 'messages'} in the inbox`;
  return `Connected to ${mailbox.address}${inbox}.`;
}

export interface OutcomeParts {
  /** "new ticket", "comment", ... (the action with spaces), or null. */
  action: string | null;
  /** The ticket it opened or commented on, when the outcome names one. */
  ticketId: number | null;
  reason: string | null;
}

/** The parts of a message's outcome the screen shows; anything unexpected is left out. */
export function outcomeParts(outcome: MailboxMessage['outcome']): OutcomeParts {
  if (!outcome) return { action: null, ticketId: null, reason: null };
  const action = typeof outcome.action === 'string' ? outcome.action.replaceAll('_', ' ') : null;
  const ticketId =
    typeof outcome.ticket_id === 'number' && Number.isInteger(outcome.ticket_id) && outcome.ticket_id > 0
      ? outcome.ticket_id
      : null;
  const reason = typeof outcome.reason === 'string' && outcome.reason ? outcome.reason : null;
  return { action, ticketId, reason };
}
