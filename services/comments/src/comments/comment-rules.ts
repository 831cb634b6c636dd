/**
 * The rules of a comment's own fields (spec "Comments" and limits), without I/O:
 * - content: required, not blank, at most 50000 code points, kept exactly as written;
 * - content_html: optional (null = none), at most 50000 code points as given AND after sanitizing
 *   (sanitizing can lengthen it: escaped text, forced link attributes), stored sanitized;
 * - is_internal: default true; a public comment can never become internal again
 *   (publicCommentBecomesInternal), internal -> public is allowed.
 * Every problem of a request is reported at once (422 with validation_errors per field).
 */
import { AppError, FieldErrors } from '@tix/kit';
import {
  codePointLength,
  COMMENT_LIMITS,
  fitsCodePoints,
  hasControlCharacters,
  hasLoneSurrogate,
} from '@tix/protos';
import { sanitizeCommentHtml } from './comment-html.js';
import type { CommentFields } from './comment-row.js';

export const MESSAGES = {
  contentEmpty: 'Content cannot be empty',
  contentTooLong: `Content must be at most ${COMMENT_LIMITS.content} characters`,
  contentControl: 'Content must not contain control characters',
  contentUnicode: 'Content must be valid Unicode text',
  htmlTooLong: `Content HTML must be at most ${COMMENT_LIMITS.contentHtml} characters`,
  htmlTooLongSanitized: `Content HTML must be at most ${COMMENT_LIMITS.contentHtml} characters after sanitizing`,
  htmlControl: 'Content HTML must not contain control characters',
  htmlUnicode: 'Content HTML must be valid Unicode text',
  publicToInternal: 'A public comment cannot be made internal',
} as const;

/** A change of a comment, checked and normalised: only the fields present change. */
export type CommentEdit = Partial<CommentFields>;

/** The message for text PostgreSQL cannot store or a comment should not hold, if any. */
function characterProblem(text: string, messages: { control: string; unicode: string }): string | undefined {
  if (hasControlCharacters(text, true)) return messages.control;
  if (hasLoneSurrogate(text)) return messages.unicode;
  return undefined;
}

function checkContent(errors: FieldErrors, content: string): string {
  if (content.trim() === '') errors.add('content', MESSAGES.contentEmpty);
  else if (!fitsCodePoints(content, COMMENT_LIMITS.content)) errors.add('content', MESSAGES.contentTooLong);
  else {
    const problem = characterProblem(content, {
      control: MESSAGES.contentControl,
      unicode: MESSAGES.contentUnicode,
    });
    if (problem) errors.add('content', problem);
  }
  return content;
}

/** The sanitized HTML (null when none is left); the limit applies to the input and to the result. */
function checkContentHtml(errors: FieldErrors, html: string): string | null {
  if (!fitsCodePoints(html, COMMENT_LIMITS.contentHtml)) {
    errors.add('content_html', MESSAGES.htmlTooLong);
    return null;
  }
  const problem = characterProblem(html, { control: MESSAGES.htmlControl, unicode: MESSAGES.htmlUnicode });
  if (problem) {
    errors.add('content_html', problem);
    return null;
  }
  const sanitized = sanitizeCommentHtml(html);
  if (sanitized !== null && codePointLength(sanitized) > COMMENT_LIMITS.contentHtml)
    errors.add('content_html', MESSAGES.htmlTooLongSanitized);
  return sanitized;
}

/** True when the change would turn a customer-visible comment back into an internal note. */
export function publicCommentBecomesInternal(
  current: Pick<CommentFields, 'isInternal'>,
  requested: boolean | undefined,
): boolean {
  return !current.isInternal && requested === true;
}

/** The fields of a new comment: content checked, content_html sanitized, internal unless said otherwise. */
export function checkNewComment(input: {
  content: string;
  contentHtml?: string | null;
  isInternal?: boolean;
}): CommentFields {
  const errors = new FieldErrors();
  const content = checkContent(errors, input.content);
  const contentHtml =
    input.contentHtml === undefined || input.contentHtml === null
      ? null
      : checkContentHtml(errors, input.contentHtml);
  errors.throwIfAny();
  return { content, contentHtml, isInternal: input.isInternal ?? true };
}

/**
 * The checked change of `current`: present fields validated (content_html sanitized; null clears
 * it), and a public comment refused as internal. 422 naming every problem.
 */
export function checkCommentEdit(
  current: Pick<CommentFields, 'isInternal'>,
  input: { content?: string; contentHtml?: string | null; isInternal?: boolean },
): CommentEdit {
  const errors = new FieldErrors();
  const edit: CommentEdit = {};
  if (input.content !== undefined) edit.content = checkContent(errors, input.content);
  if (input.contentHtml !== undefined)
    edit.contentHtml = input.contentHtml === null ? null : checkContentHtml(errors, input.contentHtml);
  if (input.isInternal !== undefined) {
    if (publicCommentBecomesInternal(current, input.isInternal))
      errors.add('is_internal', MESSAGES.publicToInternal);
    edit.isInternal = input.isInternal;
  }
  errors.throwIfAny();
  return edit;
}

/**
 * `current` with `edit` applied, or null when nothing would change. Checks the visibility rule again
 * against `current` (the locked row: a concurrent edit may have made it public since the check).
 */
export function applyCommentEdit(current: CommentFields, edit: CommentEdit): CommentFields | null {
  if (publicCommentBecomesInternal(current, edit.isInternal))
    throw AppError.validation({ is_internal: [MESSAGES.publicToInternal] });
  const next: CommentFields = {
    content: edit.content ?? current.content,
    contentHtml: edit.contentHtml === undefined ? current.contentHtml : edit.contentHtml,
    isInternal: edit.isInternal ?? current.isInternal,
  };
  const unchanged =
    next.content === current.content &&
    next.contentHtml === current.contentHtml &&
    next.isInternal === current.isInternal;
  return unchanged ? null : next;
}
