/**
 * The one place HTML from callers is made safe: `content_html` is sanitized on write with
 * sanitize-html and an explicit allow-list, and only the sanitized value is stored and returned.
 *
 * Kept: text formatting (p, br, strong, em, b, i, u, s, blockquote, code, pre, h1-h6, hr), lists,
 * tables, links, and images of the ticket's own attachments. A link keeps `href` (http, https and
 * mailto URLs, or relative ones) and `title`; every link is forced to
 * `rel="noopener noreferrer nofollow"` and `target="_blank"`. An image stays only when its `src` is
 * exactly `/attachments/{id}/download` (an attachment, as inbound mail's inline images are stored:
 * docs/mail.md, "Body"), with `alt`, `title`, `width` and `height`; any other image (a remote URL,
 * `data:`, `cid:`) is dropped, so showing a comment never loads anything from elsewhere.
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
  'img',
] as const;

/** The one image source kept: an attachment's download path, resolved by each host (docs/mail.md). */
export const ATTACHMENT_IMAGE_SRC = /^\/attachments\/[1-9]\d{0,9}\/download$/;

/** The `src` of an image showing attachment `id`. */
export function attachmentImageSrc(id: number): string {
  return `/attachments/${id}/download`;
}

/** The attributes every link is given, whatever the caller wrote. */
export const LINK_ATTRIBUTES = { rel: 'noopener noreferrer nofollow', target: '_blank' } as const;

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...ALLOWED_TAGS],
  // rel and target are listed so the forced values below survive; the caller's own are overwritten.
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
    img: ['src', 'alt', 'title', 'width', 'height'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  // `//host/path` would leave the app for any host while looking like a relative link.
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  allowVulnerableTags: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { ...LINK_ATTRIBUTES }) },
  exclusiveFilter: (frame) => frame.tag === 'img' && !ATTACHMENT_IMAGE_SRC.test(frame.attribs.src ?? ''),
};

/**
 * `html` with everything outside the allow-list removed. Returns null when nothing visible is left
 * (e.g. the input was only a script), so clients fall back to `content` instead of rendering nothing.
 */
export function sanitizeCommentHtml(html: string): string | null {
  const sanitized = sanitizeHtml(html, OPTIONS);
  return sanitized.trim() === '' ? null : sanitized;
}
