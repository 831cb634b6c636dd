/** The mail operations' prose (routes/app/mail.ts; docs/mail.md). */
export const MAIL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  listMailboxes:
    "The project's mailboxes. Without any, the project still takes mail at `<slug>@MAIL_DOMAIN` " +
    '(and `<slug>+anything@MAIL_DOMAIN`) through the SMTP listener.',
  createMailbox:
    'An `smtp` mailbox is an address the SMTP listener accepts for the project (a relay or MX forwards ' +
    'to it); an `imap` one is an account Tix fetches from continuously (IDLE), signing in with a ' +
    'password or an OAuth2 access token (`auth: xoauth2`). The secret is stored sealed and never shown. ' +
    '409 when another mailbox has the address; 422 names each bad or missing field.',
  updateMailbox:
    'Only the given fields change. A paused mailbox fetches nothing and its SMTP mail is refused with a ' +
    'temporary error, so senders retry once it resumes; nothing is lost. 404 `Mailbox not found` for a ' +
    'mailbox of another project.',
  testMailbox:
    'Connects to the IMAP server with the stored secret and answers whether that worked, with the ' +
    "server's error when not. An SMTP mailbox is always ok.",
  listMailboxMessages:
    'Every message is stored durably before it is acknowledged, then processed: `processed` (a ticket ' +
    'or a comment; `outcome` names it), `ignored` (a bounce, an out-of-office reply, list mail, a loop), ' +
    '`refused` (too large, too many parts, unparseable: the sender is told) or `failed`.',
  listTicketMail:
    'Every message Tix sent for the ticket (replies to public comments, the acknowledgement), oldest ' +
    'first, with its delivery state: `queued`/`sending` (retried with backoff), `sent`, `failed` ' +
    '(`last_error`), `bounced` (`bounce_reason`) or `suppressed`. `received` is the mail that opened ' +
    'the ticket or became one of its comments (`outcome.comment_id`), oldest first, with its sender ' +
    'checks in `outcome.auth` (spf, dkim, dmarc, dmarc_domain) and `outcome.untrusted: true` when DMARC ' +
    'failed for the From domain. `?comment_id=` narrows both to one ' +
    "comment's mail. 404 `Ticket not found` unless the ticket is one of the project's.",
  getMailSettings:
    "The project's sender name and address, reply signature, acknowledgement of new mail tickets " +
    '(on/off, subject and body templates), reopen window and whether list mail opens tickets. A ' +
    'project never configured answers the defaults.',
  updateMailSettings:
    'Only the given fields change. The mail service checks them: an email address, one-line subject, ' +
    'known placeholders only, a reopen window of 0 to 365 days; 422 names each bad field.',
};
