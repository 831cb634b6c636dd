import { expect } from 'chai';
import { MAX_INT32 } from '@tix/protos';
import { refusalOf, commentSuite, listAll } from './support.js';

/** Input PostgreSQL cannot store, absurd sizes and ids are refused as the caller's fault, never a 500. */
describe('comments: hostile input is refused, never answered with 500', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_hostile');
  let existing: number;

  before(async () => {
    existing = (await f.newComment(f.ticket)).id;
  });

  it('NUL bytes in content and content_html are 422 (create and update)', async () => {
    expect(
      await refusalOf(f.newComment(f.ticket, { content: 'a\u0000b', content_html: '<p>\u0000</p>' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        content: ['Content must not contain control characters'],
        content_html: ['Content HTML must not contain control characters'],
      },
    });
    expect(
      await refusalOf(
        f.client.UpdateComment({ project_id: f.support.id, id: existing, content: '\u0000' }, f.as('agent')),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { content: ['Content must not contain control characters'] },
    });
  });

  it('50001-character content and content_html are 422; 50000 fits', async () => {
    expect(
      await refusalOf(
        f.newComment(f.ticket, { content: 'a'.repeat(50_001), content_html: 'b'.repeat(50_001) }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        content: ['Content must be at most 50000 characters'],
        content_html: ['Content HTML must be at most 50000 characters'],
      },
    });
    const max = await f.newComment(f.ticket, { content: 'é'.repeat(50_000) });
    expect(max.content).to.equal('é'.repeat(50_000));
  });

  it('blank content is 422', async () => {
    expect((await refusalOf(f.newComment(f.ticket, { content: '' }))).validation_errors).to.deep.equal({
      content: ['Content cannot be empty'],
    });
    expect((await refusalOf(f.newComment(f.ticket, { content: ' \n ' }))).validation_errors).to.deep.equal({
      content: ['Content cannot be empty'],
    });
  });

  it('a lone surrogate cannot cross gRPC (protobuf strings are UTF-8): it arrives as U+FFFD and is stored, not a 500', async () => {
    const created = await f.newComment(f.ticket, { content: 'x\udc00' });
    expect(created.content).to.match(/^x\ufffd+$/);
  });

  it('zero, negative and huge ids are 404, not errors', async () => {
    for (const id of [0, -1, MAX_INT32]) {
      expect(
        await refusalOf(f.client.GetComment({ project_id: f.support.id, id }, f.as('agent'))),
      ).to.deep.equal({
        kind: 'not_found',
        message: 'Comment not found',
      });
      expect((await refusalOf(f.newComment(id, { content: 'x' }))).kind).to.equal('not_found');
    }
    expect(
      (
        await refusalOf(
          listAll(
            f.client,
            { project_id: MAX_INT32, ticket_id: f.ticket, include_internal: true },
            f.as('agent'),
          ),
        )
      ).kind,
    ).to.equal('not_found');
  });

  it('writes without a principal are 401', async () => {
    expect(
      await refusalOf(
        f.client.CreateComment({ project_id: f.support.id, ticket_id: f.ticket, content: 'x' }, {}),
      ),
    ).to.deep.equal({ kind: 'unauthenticated', message: 'Authentication required' });
  });
});
