/** Addresses of outgoing mail (docs/mail.md, "Outbound"). */

/** Loose RFC 5321 syntax: a local part and a dotted domain, no spaces, angle brackets or quotes. */
const ADDRESS =
  /^[^\s@<>"(),;:\\[\]]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

export function isEmailAddress(value: string): boolean {
  return value.length <= 320 && ADDRESS.test(value);
}

/** The project's sending address: its setting, or <slug>@MAIL_DOMAIN. */
export function projectAddress(settings: { fromAddress: string }, slug: string, domain: string): string {
  return settings.fromAddress !== '' ? settings.fromAddress : `${slug}@${domain}`;
}

/** `"Name" <address>` with the name quoted (control characters and quotes removed). */
export function formatFrom(name: string, address: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point here
  const clean = name.replace(/[\u0000-\u001f\u007f"\\]+/g, ' ').trim();
  return clean === '' ? address : `"${clean}" <${address}>`;
}
