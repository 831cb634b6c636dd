/**
 * A received message's sender checks in words, for every screen that shows them (Admin > Mailboxes,
 * the ticket thread), pure so that it is unit-tested. The mail service records them on the message's
 * `outcome` (an open object): `auth` (spf, dkim, dkim_domain, dmarc, dmarc_domain, dmarc_policy) and
 * `untrusted: true` when the From domain failed DMARC (docs/mail.md, "Sender authentication").
 */

/** A received message's outcome as the API answers it (open: anything unexpected is left out). */
export type MailOutcome = Record<string, unknown> | null | undefined;

export interface SenderChecks {
  /** "SPF pass · DKIM pass (example.com) · DMARC pass (p=reject)". */
  line: string;
  /** Set when DMARC failed for the From domain: "Sender not verified: DMARC failed for <domain>". */
  warning: string | null;
}

/** The sender checks of a message's outcome, or null when it records none. */
export function senderChecks(outcome: MailOutcome): SenderChecks | null {
  const auth = outcome?.auth;
  if (!auth || typeof auth !== 'object') return null;
  const field = (name: string): string | null => {
    const value = (auth as Record<string, unknown>)[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  const spf = field('spf');
  const dkim = field('dkim');
  const dmarc = field('dmarc');
  if (!spf && !dkim && !dmarc) return null;
  const dkimDomain = field('dkim_domain');
  const policy = field('dmarc_policy');
  const line = [
    `SPF ${spf ?? 'none'}`,
    `DKIM ${dkim ?? 'none'}${dkimDomain ? ` (${dkimDomain})` : ''}`,
    `DMARC ${dmarc ?? 'none'}${policy ? ` (p=${policy})` : ''}`,
  ].join(' · ');
  const domain = field('dmarc_domain');
  const failed = dmarc === 'fail' || outcome?.untrusted === true;
  const warning = failed ? `Sender not verified: DMARC failed${domain ? ` for ${domain}` : ''}` : null;
  return { line, warning };
}
