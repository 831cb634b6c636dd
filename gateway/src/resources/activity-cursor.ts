/**
 * The opaque cursors of the two polls: base64url of `{"s":N}` (the activity feed, N an entry id) or
 * `{"e":N}` (the event stream, N a sequence number), N a safe integer from 0 (0: an empty log).
 * Clients must not build them; the kind letter keeps one route's cursor from being taken by the
 * other. Only the canonical spelling decodes, so a cursor stands for exactly one position.
 */
export type CursorKind = 'activity' | 'events';

const LETTER: Record<CursorKind, string> = { activity: 's', events: 'e' };

/** Longer text cannot be the canonical cursor of a safe integer (that takes at most 30 characters). */
export const MAX_CURSOR_LENGTH = 64;

export function encodeCursor(kind: CursorKind, position: number): string {
  return Buffer.from(`{"${LETTER[kind]}":${position}}`).toString('base64url');
}

/** The position `text` stands for, or undefined when it is not a cursor of `kind`. */
export function decodeCursor(kind: CursorKind, text: string): number | undefined {
  if (text.length > MAX_CURSOR_LENGTH) return undefined;
  const match = /^\{"([a-z])":(0|[1-9][0-9]*)\}$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match?.[1] !== LETTER[kind]) return undefined;
  const position = Number(match[2]);
  // Node's base64url decoder skips stray characters and padding: only the canonical text is accepted.
  if (!Number.isSafeInteger(position) || encodeCursor(kind, position) !== text) return undefined;
  return position;
}
