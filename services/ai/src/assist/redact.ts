/**
 * Personal data in text reused from another ticket is replaced by [redacted]: e-mail addresses, URLs
 * carrying tokens (query parameters or long random path segments), phone numbers and long digit
 * runs (orders, cards, accounts). Conservative on purpose: a reply that loses a harmless number is
 * better than one that leaks another customer's.
 */
export const REDACTED = '[redacted]';

// Each pattern can start only where its match could begin (after a character that cannot be part of
// it), and the URL's scan is bounded: replacing runs in time linear in the text, so that a 50,000
// character comment cannot hold the service's event loop for seconds (an unanchored `[...]+@` is
// quadratic on a long run without an @).
const PATTERNS: readonly RegExp[] = [
  // E-mail addresses.
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  // URLs with a query string, or with a path segment of 16+ token-like characters (a sentence's
  // closing punctuation is not part of the URL).
  /\bhttps?:\/\/[^\s<>"']{0,2048}?(?:\?[^\s<>"']+|\/[A-Za-z0-9_-]{16,})[^\s<>"']*(?<![.,;:!?)\]])/g,
  // Phone numbers: an optional +, then 7 or more digits with spaces, dots, dashes or parentheses.
  /(?:\+|\b)\d(?:[\s().-]*\d){6,}\b/g,
  // Any other run of 6 or more digits.
  /\b\d{6,}\b/g,
];

/** `text` with personal data replaced, and how many replacements were made. */
export function redact(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let result = text;
  for (const pattern of PATTERNS) {
    result = result.replace(pattern, () => {
      redactions += 1;
      return REDACTED;
    });
  }
  return { text: result, redactions };
}
