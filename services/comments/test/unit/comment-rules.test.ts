import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { CommentFields } from '../../src/comments/comment-row.js';
import {
  applyCommentEdit,
  checkCommentEdit,
  checkNewComment,
  MESSAGES,
  publicCommentBecomesInternal,
} from '../../src/comments/comment-rules.js';

/** kind + message + validation errors of what `run` throws. */
function refusalOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    const appError = error as AppError;
    return { kind: appError.kind, message: appError.message, validation_errors: appError.validationErrors };
  }
  throw new Error('expected a refusal');
}

const PUBLIC: CommentFields = { content: 'hello', contentHtml: null, isInternal: false };
const INTERNAL: CommentFields = { content: 'note', contentHtml: '<p>note</p>', isInternal: true };

describe('comments: rules of a new comment', () => {
  it('defaults to internal without HTML and keeps content exactly as written', () => {
    expect(checkNewComment({ content: '  two\n\nlines  ' })).to.deep.equal({
      content: '  two\n\nlines  ',
      contentHtml: null,
      isInternal: true,
    });
    expect(checkNewComment({ content: 'x', contentHtml: null, isInternal: false })).to.deep.equal({
      content: 'x',
      contentHtml: null,
      isInternal: false,
    });
  });

  it('sanitizes content_html', () => {
    expect(
      checkNewComment({ content: 'x', contentHtml: '<p onclick="y">a<script>z</script></p>' }).contentHtml,
    ).to.equal('<p>a</p>');
  });

  it('content: blank, too long (code points), control characters, lone surrogates', () => {
    const validation = (content: string) => refusalOf(() => checkNewComment({ content }));
    expect(validation('')).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { content: [MESSAGES.contentEmpty] },
    });
    expect(validation(' \n\t ').validation_errors).to.deep.equal({ content: ['Content cannot be empty'] });
    expect(validation('a'.repeat(50_001)).validation_errors).to.deep.equal({
      content: ['Content must be at most 50000 characters'],
    });
    expect(validation('a\u0000b').validation_errors).to.deep.equal({
      content: ['Content must not contain control characters'],
    });
    expect(validation('a\u0007b').validation_errors).to.deep.equal({
      content: ['Content must not contain control characters'],
    });
    expect(validation('a\ud800b').validation_errors).to.deep.equal({
      content: ['Content must be valid Unicode text'],
    });
  });

  it('counts characters as code points: 50000 emoji fit', () => {
    expect(checkNewComment({ content: '😀'.repeat(50_000) }).content).to.have.length(100_000);
    expect(() => checkNewComment({ content: '😀'.repeat(50_001) })).to.throw(AppError);
  });

  it('content_html: the limit holds before and after sanitizing; every problem is reported at once', () => {
    expect(
      refusalOf(() => checkNewComment({ content: '', contentHtml: 'a'.repeat(50_001) })).validation_errors,
    ).to.deep.equal({
      content: ['Content cannot be empty'],
      content_html: ['Content HTML must be at most 50000 characters'],
    });
    // 50000 characters in, but escaping `<` as `&lt;` makes it four times longer.
    expect(
      refusalOf(() => checkNewComment({ content: 'x', contentHtml: '<'.repeat(50_000) })).validation_errors,
    ).to.deep.equal({ content_html: ['Content HTML must be at most 50000 characters after sanitizing'] });
    expect(
      refusalOf(() => checkNewComment({ content: 'x', contentHtml: '<p>\u0000</p>' })).validation_errors,
    ).to.deep.equal({ content_html: ['Content HTML must not contain control characters'] });
  });
});

describe('comments: rules of an edit', () => {
  it('a public comment cannot become internal; internal -> public and public -> public are fine', () => {
    expect(publicCommentBecomesInternal(PUBLIC, true)).to.be.true;
    expect(publicCommentBecomesInternal(PUBLIC, false)).to.be.false;
    expect(publicCommentBecomesInternal(PUBLIC, undefined)).to.be.false;
    expect(publicCommentBecomesInternal(INTERNAL, false)).to.be.false;
    expect(publicCommentBecomesInternal(INTERNAL, true)).to.be.false;
    expect(refusalOf(() => checkCommentEdit(PUBLIC, { isInternal: true }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { is_internal: ['A public comment cannot be made internal'] },
    });
    expect(checkCommentEdit(INTERNAL, { isInternal: false })).to.deep.equal({ isInternal: false });
  });

  it('only given fields are in the edit; content_html null clears, a string is sanitized', () => {
    expect(checkCommentEdit(INTERNAL, {})).to.deep.equal({});
    expect(checkCommentEdit(INTERNAL, { contentHtml: null })).to.deep.equal({ contentHtml: null });
    expect(checkCommentEdit(INTERNAL, { content: 'new', contentHtml: '<b onclick="x">b</b>' })).to.deep.equal(
      {
        content: 'new',
        contentHtml: '<b>b</b>',
      },
    );
  });

  it('reports field problems and the visibility rule together', () => {
    expect(
      refusalOf(() => checkCommentEdit(PUBLIC, { content: ' ', isInternal: true })).validation_errors,
    ).to.deep.equal({
      content: ['Content cannot be empty'],
      is_internal: ['A public comment cannot be made internal'],
    });
  });

  it('applyCommentEdit: the next fields, null when nothing changes', () => {
    expect(applyCommentEdit(INTERNAL, { content: 'x' })).to.deep.equal({ ...INTERNAL, content: 'x' });
    expect(applyCommentEdit(INTERNAL, { contentHtml: null })).to.deep.equal({
      ...INTERNAL,
      contentHtml: null,
    });
    expect(applyCommentEdit(INTERNAL, { isInternal: false })).to.deep.equal({
      ...INTERNAL,
      isInternal: false,
    });
    expect(applyCommentEdit(INTERNAL, {})).to.equal(null);
    expect(applyCommentEdit(INTERNAL, { content: 'note', isInternal: true })).to.equal(null);
  });

  it('applyCommentEdit re-checks visibility against the row as it is now (made public meanwhile)', () => {
    // The edit was checked while the comment was internal; by the time it is applied it is public.
    const edit = checkCommentEdit(INTERNAL, { isInternal: true, content: 'x' });
    expect(refusalOf(() => applyCommentEdit(PUBLIC, edit)).validation_errors).to.deep.equal({
      is_internal: ['A public comment cannot be made internal'],
    });
  });
});
