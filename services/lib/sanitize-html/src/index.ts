/**
 * The one place HTML from callers is made safe: `content_html` is sanitized on write with
 * sanitize-html and an explicit allow-list, and only the sanitized value is stored and returned.
 *
 * Kept: text formatting (p, br, strong, em, b, i, u, s, blockquote, code, pre, h1-h6, hr), lists,
 * tables, and links. A link keeps `href` (http, https and mailto URLs, or relative ones) and
 * `title`; every link is forced to `rel="noopener noreferrer nofollow"` and `target="_blank"`.
 * Everything else goes: script, style, iframe, object, form, svg and math with their content where
 * it is code; every other tag is unwrapped to its text; every other attribute (on*, style, class,
 * src, ...) is dropped, and so are `javascript:`, `data:` and protocol-relative URLs.
 */
import sanitizeHtml from 'sanitize-html';

/** Tags that survive sanitizing; anything else is unwrapped (its text kept) or dropped with its content. */
export const ALLOWED_TAGS = [
  'p',
  'br',
  'strong',
  'em',
  'b',
  'i',
  'u',
  's',
  'blockquote',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
] as const;

/** The attributes every link is given, whatever the caller wrote. */
export const LINK_ATTRIBUTES = { rel: 'noopener noreferrer nofollow', target: '_blank' } as const;

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...ALLOWED_TAGS],
  // rel and target are listed so the forced values below survive; the caller's own are overwritten.
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  // `//host/path` would leave the app for any host while looking like a relative link.
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  allowVulnerableTags: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { ...LINK_ATTRIBUTES }) },
};

/**
 * `html` with everything outside the allow-list removed. Returns null when nothing visible is left
 * (e.g. the input was only a script), so clients fall back to `content` instead of rendering nothing.
 */
export function sanitizeCommentHtml(html: string): string | null {
  const sanitized = sanitizeHtml(html, OPTIONS);
  return sanitized.trim() === '' ? null : sanitized;
}
