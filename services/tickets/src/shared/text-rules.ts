/** Facts about caller-supplied strings that every stored or searched string must respect. */

/**
 * True when `text` holds C0 control characters or DEL (tab, LF and CR allowed when `multiLine`).
 * PostgreSQL text cannot store NUL at all, and the others are never meant in a title or a tag.
 */
export function hasControlCharacters(text: string, multiLine: boolean): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7f) return true;
    if (code < 0x20 && !(multiLine && (code === 0x09 || code === 0x0a || code === 0x0d))) return true;
  }
  return false;
}

/** True when `text` holds a lone UTF-16 surrogate (not Unicode; PostgreSQL's jsonb refuses it). */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

/** True when PostgreSQL can store and compare `text` (no NUL, no lone surrogate). */
export function isStorableText(text: string): boolean {
  return !text.includes('\0') && !hasLoneSurrogate(text);
}

/** A caller-supplied value quoted for a message, cut to `max` characters. */
export function quoted(value: string, max = 64): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
