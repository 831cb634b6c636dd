/**
 * The original filename is kept for display only (the storage key is a random UUID), but it still
 * travels to browsers in Content-Disposition and to webhook consumers, so it is cleaned at upload:
 * no path components (`../../etc/passwd` becomes `passwd`), no control or bidirectional-override
 * characters (no header injection, no `gnp.exe` spoofing), trimmed, at most 255 characters keeping
 * the extension; nothing left means `file`.
 */

export const MAX_FILENAME_CHARS = 255;
export const FALLBACK_FILENAME = 'file';

// C0 and C1 controls and DEL; bidirectional embeddings, overrides and isolates; zero-width marks.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** The display name to store for a client-supplied filename (see the file header). */
export function sanitizeFilename(raw: string): string {
  const visible = raw.normalize('NFC').replace(INVISIBLE, '');
  const lastSegment = visible.split(/[/\\]/).pop() ?? '';
  const name = lastSegment.trim();
  if (name === '' || name === '.' || name === '..') return FALLBACK_FILENAME;
  return truncateKeepingExtension(name, MAX_FILENAME_CHARS);
}

/** At most `max` code points; a short extension (`.pdf`) survives the cut. */
function truncateKeepingExtension(name: string, max: number): string {
  const points = Array.from(name);
  if (points.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length > 1 && extension.length <= 16) {
    const stem = Array.from(name.slice(0, dot)).slice(0, max - extension.length);
    return `${stem.join('').trimEnd()}${extension.join('')}`;
  }
  return points.slice(0, max).join('').trimEnd();
}
