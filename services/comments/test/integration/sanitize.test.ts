import { expect } from 'chai';
import { refusalOf, commentSuite } from './support.js';

describe('comments: content_html is sanitized before it is stored (real services)', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_html');

  async function stored(id: number): Promise<string | null> {
    const { rows } = await f.sql.query<{ content_html: string | null }>(
      'SELECT content_html FROM comments WHERE id = $1',
      [id],
    );
    return rows[0]!.content_html;
  }

  it('<script>, onerror= and javascript: are stripped; safe markup is kept; stored = returned = read', async () => {
    const hostile =
      '<p>Hello <b>team</b><script>alert(document.cookie)</script></p>' +
      '<img src=x onerror="alert(1)">' +
      '<a href="javascript:alert(1)" onclick="steal()">click</a> ' +
      '<a href="https://docs.example.com/fix" title="Fix">docs</a>' +
      '<ul><li onmouseover="x()">step</li></ul>';
    const expected =
      '<p>Hello <b>team</b></p>' +
      '<a rel="noopener noreferrer nofollow" target="_blank">click</a> ' +
      '<a href="https://docs.example.com/fix" title="Fix" rel="noopener noreferrer nofollow" target="_blank">docs</a>' +
      '<ul><li>step</li></ul>';
    const created = await f.newComment(f.ticket, { content: 'Hello team', content_html: hostile });
    expect(created.content_html).to.equal(expected);
    expect(await stored(created.id)).to.equal(expected);
    const read = await f.client.GetComment({ project_id: f.support.id, id: created.id }, f.as('agent'));
    expect(read.content_html).to.equal(expected);
    for (const needle of ['<script', 'onerror', 'onclick', 'onmouseover', 'javascript:', '<img'])
      expect(read.content_html).not.to.include(needle);
  });

  it('updates are sanitized the same way', async () => {
    const created = await f.newComment(f.ticket, { content: 'x', content_html: '<p>ok</p>' });
    const updated = await f.client.UpdateComment(
      {
        project_id: f.support.id,
        id: created.id,
        content_html: { value: '<p style="x" onclick="y">new<iframe src="https://evil"></iframe></p>' },
      },
      f.as('agent'),
    );
    expect(updated.content_html).to.equal('<p>new</p>');
    expect(await stored(created.id)).to.equal('<p>new</p>');
  });

  it('HTML that sanitizes to nothing is stored as no HTML (null)', async () => {
    const created = await f.newComment(f.ticket, { content: 'x', content_html: '<script>alert(1)</script>' });
    expect(created.content_html).to.equal(undefined);
    expect(await stored(created.id)).to.equal(null);
  });

  it('sanitizing must not push the value over the limit: 50000 characters that grow on escaping are 422', async () => {
    expect(
      await refusalOf(f.newComment(f.ticket, { content: 'x', content_html: '&'.repeat(50_000) })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { content_html: ['Content HTML must be at most 50000 characters after sanitizing'] },
    });
    // Exactly at the limit after sanitizing is fine.
    const atLimit = await f.newComment(f.ticket, { content: 'x', content_html: 'a'.repeat(50_000) });
    expect(atLimit.content_html).to.have.length(50_000);
  });
});
