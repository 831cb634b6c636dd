/** The comment HTML sanitiser lives in `@tix/sanitize-html`, shared with mail parsing (docs/mail.md). */
export { ALLOWED_TAGS, LINK_ATTRIBUTES, sanitizeCommentHtml } from '@tix/sanitize-html';
