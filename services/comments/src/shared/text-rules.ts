/**
 * Facts about caller-supplied strings that every stored string must respect (the same rules as the
 * ticket service's text fields, so a client meets one behaviour across the API).
 */

/**
 * True when `text` holds C0 control characters or DEL other than tab, LF and CR. PostgreSQL text
 * cannot store NUL at all, and the others are never meant in a comment.
 */
export function hasControlCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7f) return true;
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return true;
  }
  return false;
}

/** True when `text` holds a lone UTF-16 surrogate (not Unicode; PostgreSQL cannot store it as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}
