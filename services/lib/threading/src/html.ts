/**
 * The visible part of an HTML reply, ready to be a comment's `content_html` (docs/mail.md, "Body"):
 * the quoted history removed the way quotes.ts cuts the text, inline `cid:` images pointed at the
 * attachments they were stored as, then the one sanitiser of comments (@tix/sanitize-html).
 *
 * Quoted history, by the markers the common clients write:
 * - Gmail: `div.gmail_quote` (and `gmail_quote_container`), `blockquote.gmail_quote`; Yahoo's
 *   `div.yahoo_quoted`;
 * - Apple Mail and Thunderbird: `blockquote[type=cite]`; Thunderbird's attribution
 *   `div.moz-cite-prefix`;
 * - Outlook: `#divRplyFwdMsg`, `#appendonsend` and `#mail-editor-reference-message-container`, and
 *   desktop Outlook's header block (a `border-top` div starting `From:` with a `Sent:` line): the
 *   marker and everything after it go;
 * - a quote that is a forwarded message (its first words, or the line before it, say so) stays, as
 *   the text rules keep a forward;
 * - signatures (`div.gmail_signature`, `div.moz-signature`) go, as the text's `-- ` signature does.
 */
import render from 'dom-serializer';
import { isDocument, isTag, isText, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { removeElement, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { sanitizeCommentHtml } from '@tix/sanitize-html';

const FORWARDED =
  /forwarded message|begin forwarded message|weitergeleitete nachricht|message transf[ée]r[ée]/i;
const OUTLOOK_CUT_IDS = new Set(['divrplyfwdmsg', 'appendonsend', 'mail-editor-reference-message-container']);

const classesOf = (element: Element) => (element.attribs.class ?? '').toLowerCase().split(/\s+/);

function isQuote(element: Element): boolean {
  const classes = classesOf(element);
  if (
    ['gmail_quote', 'gmail_quote_container', 'yahoo_quoted', 'moz-cite-prefix'].some((c) =>
      classes.includes(c),
    )
  )
    return true;
  return element.name === 'blockquote' && (element.attribs.type ?? '').toLowerCase() === 'cite';
}

function isSignature(element: Element): boolean {
  const classes = classesOf(element);
  return classes.includes('gmail_signature') || classes.includes('moz-signature');
}

/** Outlook's markers: the reply starts above them, everything from them on is history. */
function isCut(element: Element): boolean {
  if (OUTLOOK_CUT_IDS.has((element.attribs.id ?? '').toLowerCase())) return true;
  if (element.name !== 'div' || !/border-top\s*:\s*solid/i.test(element.attribs.style ?? '')) return false;
  const text = textContent(element).slice(0, 500);
  return /^\s*(From|Von|De):/i.test(text) && /\b(Sent|Date|Gesendet|Envoyé):/i.test(text);
}

/** The text of the element before `node` (its sibling), e.g. Apple's "Begin forwarded message:". */
function previousText(node: AnyNode): string {
  let previous = node.prev;
  while (previous && isText(previous) && previous.data.trim() === '') previous = previous.prev;
  return previous ? textContent(previous).slice(-200) : '';
}

function isForward(element: Element): boolean {
  return FORWARDED.test(textContent(element).slice(0, 300)) || FORWARDED.test(previousText(element));
}

/** Removes `node`, every sibling after it, and the same after each of its ancestors. */
function cutFrom(node: AnyNode): void {
  let current: AnyNode | null = node;
  let first = true;
  while (current) {
    const parent: ParentNode | null = current.parent;
    let next = current.next;
    if (first) removeElement(current);
    while (next) {
      const after: AnyNode | null = next.next;
      removeElement(next);
      next = after;
    }
    first = false;
    current = parent && !isDocument(parent) ? parent : null;
  }
}

/** The first node, in document order, that `test` accepts. */
function findFirst(nodes: AnyNode[], test: (element: Element) => boolean): Element | null {
  for (const node of nodes) {
    if (!isTag(node)) continue;
    if (test(node)) return node;
    const inner = findFirst(node.children, test);
    if (inner) return inner;
  }
  return null;
}

function removeAll(nodes: AnyNode[], test: (element: Element) => boolean): void {
  for (const node of [...nodes]) {
    if (!isTag(node)) continue;
    if (test(node)) removeElement(node);
    else removeAll(node.children, test);
  }
}

function eachImage(nodes: AnyNode[], visit: (image: Element) => void): void {
  for (const node of [...nodes]) {
    if (!isTag(node)) continue;
    if (node.name === 'img') visit(node);
    else eachImage(node.children, visit);
  }
}

/** Line breaks and blank text the removed history leaves at the end. */
function trimEnd(parent: ParentNode): void {
  for (;;) {
    const last = parent.lastChild;
    if (!last) return;
    if ((isText(last) && last.data.trim() === '') || (isTag(last) && last.name === 'br')) removeElement(last);
    else if (isTag(last) && ['div', 'p', 'span'].includes(last.name) && textContent(last).trim() === '') {
      if (findFirst(last.children, (element) => element.name === 'img')) return;
      removeElement(last);
    } else {
      if (isTag(last)) trimEnd(last);
      return;
    }
  }
}

/** The Content-ID of a `cid:` URL (RFC 2392: URL-encoded, no angle brackets), or null. */
export function cidOf(src: string): string | null {
  const match = /^\s*cid:(.+)$/i.exec(src);
  if (!match) return null;
  let cid = match[1]!.trim();
  try {
    cid = decodeURIComponent(cid);
  } catch {
    // not URL-encoded after all: taken as written
  }
  return cid.replace(/^<|>$/g, '').toLowerCase() || null;
}

/** The mail's HTML without its quoted history and signature (not sanitised). */
export function visibleHtml(html: string): string {
  const document = parseDocument(html, { decodeEntities: true });
  const cut = findFirst(document.children, isCut);
  if (cut) cutFrom(cut);
  removeAll(
    document.children,
    (element) => (isQuote(element) && !isForward(element)) || isSignature(element),
  );
  trimEnd(document);
  return render(document, { encodeEntities: 'utf8' });
}

export interface ReplyHtmlOptions {
  /**
   * Where the inline image with this Content-ID (lower-cased) is stored: its URL (docs/mail.md:
   * `/attachments/{id}/download`), or null when it was not stored (the image is left out).
   */
  imageUrl: (cid: string) => string | null;
}

/**
 * `html` as a comment's content_html: visibleHtml, every `cid:` image pointed at its stored file
 * (or removed), then sanitised. Null when nothing visible is left (the comment keeps its text).
 */
export function replyHtml(html: string | null, options: ReplyHtmlOptions): string | null {
  if (html === null || html.trim() === '') return null;
  const document = parseDocument(visibleHtml(html), { decodeEntities: true });
  eachImage(document.children, (image) => {
    const cid = cidOf(image.attribs.src ?? '');
    const url = cid === null ? null : options.imageUrl(cid);
    if (url === null) removeElement(image);
    else image.attribs.src = url;
  });
  return sanitizeCommentHtml(render(document, { encodeEntities: 'utf8' }));
}
