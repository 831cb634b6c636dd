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

type MailboxBody = operations['createMailbox']['requestBody']['content']['application/json'];
export type OAuth2Body = NonNullable<MailboxBody['oauth2']>;

/**
 * What an admin registers where (docs/mail.md, "OAuth2 (XOAUTH2)"): the token endpoint and the
 * scope IMAP needs. Microsoft's URL names the tenant: `organizations` works for work accounts of
 * any tenant, a tenant id restricts it to one.
 */
export const OAUTH2_PRESETS = [
  {
    id: 'google',
    label: 'Google Workspace / Gmail',
    token_url: 'https://oauth2.googleapis.com/token',
    scope: 'https://mail.google.com/',
  },
  {
    id: 'microsoft',
    label: 'Microsoft 365',
    token_url: 'https://login.microsoftonline.com/organizations/oauth2/v2.0/token',
    scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
  },
] as const;

export interface OAuth2Fields {
  token_url: string;
  client_id: string;
  client_secret: string;
  refresh_token: string;
  scope: string;
}

/** The `oauth2` of a new XOAUTH2 mailbox: values trimmed, the optional ones left out when empty. */
export function oauth2CreateBody(fields: OAuth2Fields): OAuth2Body {
  return {
    token_url: fields.token_url.trim(),
    client_id: fields.client_id.trim(),
    refresh_token: fields.refresh_token.trim(),
    ...(fields.client_secret ? { client_secret: fields.client_secret } : {}),
    ...(fields.scope.trim() ? { scope: fields.scope.trim() } : {}),
  };
}

/**
 * The `oauth2` of a sign-in change: only the fields typed into (an empty one keeps the stored value,
 * as the secrets are never shown to be edited); null when nothing was typed.
 */
export function oauth2UpdateBody(fields: OAuth2Fields): Partial<OAuth2Body> | null {
  const given = Object.fromEntries(
    (Object.keys(fields) as (keyof OAuth2Fields)[])
      .map((key) => [key, key === 'client_secret' ? fields[key] : fields[key].trim()] as const)
      .filter(([, value]) => value !== ''),
  ) as Partial<OAuth2Body>;
  return Object.keys(given).length === 0 ? null : given;
}
