/**
 * How much of a body the delivery log keeps: the first 4 KiB (UTF-8 bytes, cut at a character
 * boundary), flagged when there was more. The same cap for what was sent and what came back, so a
 * log page stays small however large a ticket or a receiver's error page is.
 */
export const BODY_EXCERPT_BYTES = 4096;

export interface BodyExcerpt {
  text: string;
  truncated: boolean;
}

/** The excerpt of `body`; `more` says bytes beyond `body` were not even read. */
export function bodyExcerpt(body: Buffer | string, more = false): BodyExcerpt {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const truncated = more || bytes.length > BODY_EXCERPT_BYTES;
  // stream: true holds back a character the cut split, instead of decoding it as U+FFFD.
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, BODY_EXCERPT_BYTES), { stream: truncated });
  return { text, truncated };
}
