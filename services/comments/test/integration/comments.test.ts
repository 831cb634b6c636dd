import { expect } from 'chai';
import { presentComment } from '@tix/protos';
import { refusalOf, commentSuite, startCommentFixture, listAll } from './support.js';
import { suiteFixture } from '@tix/kit/testing';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('comments: create, read, list, update, delete against real services', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_crud');
  let project: number;

  before(() => {
    project = f.support.id;
  });

  it('creates an internal note by default, authored by the caller, and answers it whole; GET answers the same', async () => {
    const created = await f.client.CreateComment(
      { project_id: project, ticket_id: f.ticket, content: '  Checked the logs.\n' },
      f.as('agent'),
    );
    const json = presentComment(created);
    expect(json).to.deep.equal({
      id: created.id,
      ticket_id: f.ticket,
      user_id: f.users.agent.id,
      content: '  Checked the logs.\n',
      content_html: null,
      is_internal: true,
      author_type: 'staff',
      customer_id: null,
      created_at: created.created_at,
      updated_at: created.created_at,
    });
    expect(created.created_at).to.match(ISO);
    expect(
      presentComment(await f.client.GetComment({ project_id: project, id: created.id }, f.as('viewer'))),
    ).to.deep.equal(json);
  });

  it('creates a public reply with HTML when asked', async () => {
    const created = await f.newComment(f.ticket, {
      content: 'Fixed',
      content_html: '<p>Fixed</p>',
      is_internal: false,
    });
    expect(presentComment(created)).to.deep.include({
      content: 'Fixed',
      content_html: '<p>Fixed</p>',
      is_internal: false,
    });
  });

  it('lists oldest first with count and ticket_id; include_internal false hides internal notes', async () => {
    const fresh = await f.newTicket();
    const first = await f.newComment(fresh, { content: 'one (internal)' });
    const second = await f.newComment(fresh, { content: 'two (public)', is_internal: false });
    const third = await f.newComment(fresh, { content: 'three (internal)' }, 'lead');
    const all = await listAll(
      f.client,
      { project_id: project, ticket_id: fresh, include_internal: true },
      f.as('agent'),
    );
    expect(all.comments.map(presentComment)).to.deep.equal([first, second, third].map(presentComment));
    expect(all).to.deep.include({ count: 3, ticket_id: fresh });
    const publicOnly = await listAll(
      f.client,
      { project_id: project, ticket_id: fresh, include_internal: false },
      f.as('agent'),
    );
    expect(publicOnly.comments.map((c) => c.id)).to.deep.equal([second.id]);
    expect(publicOnly).to.deep.include({ count: 1, ticket_id: fresh });
    const none = await listAll(
      f.client,
      { project_id: project, ticket_id: await f.newTicket(), include_internal: true },
      f.as('agent'),
    );
    expect(none).to.deep.include({ comments: [], count: 0 });
  });

  it('update changes only the given fields; content_html null clears it; updated_at moves', async () => {
    const original = await f.newComment(f.ticket, { content: 'Draft', content_html: '<p>Draft</p>' });
    const edited = await f.client.UpdateComment(
      { project_id: project, id: original.id, content: 'Final', content_html: null },
      f.as('agent'),
    );
    expect(presentComment(edited)).to.deep.equal({
      ...presentComment(original),
      content: 'Final',
      updated_at: edited.updated_at,
    });
    expect(edited.updated_at >= original.updated_at).to.be.true;
    const cleared = await f.client.UpdateComment(
      { project_id: project, id: original.id, content_html: {} },
      f.as('agent'),
    );
    expect(presentComment(cleared)).to.deep.include({
      content: 'Final',
      content_html: null,
      is_internal: true,
    });
    const withHtml = await f.client.UpdateComment(
      { project_id: project, id: original.id, content_html: { value: '<em>Final</em>' } },
      f.as('agent'),
    );
    expect(presentComment(withHtml)).to.deep.include({ content: 'Final', content_html: '<em>Final</em>' });
  });

  it('internal -> public is allowed; public -> internal is refused (422 on is_internal), and stays public', async () => {
    const note = await f.newComment(f.ticket, { content: 'Will be shared' });
    const shared = await f.client.UpdateComment(
      { project_id: project, id: note.id, is_internal: false },
      f.as('agent'),
    );
    expect(shared.is_internal).to.equal(false);
    expect(
      await refusalOf(
        f.client.UpdateComment({ project_id: project, id: note.id, is_internal: true }, f.as('admin')),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { is_internal: ['A public comment cannot be made internal'] },
    });
    expect(
      (await f.client.GetComment({ project_id: project, id: note.id }, f.as('agent'))).is_internal,
    ).to.equal(false);
    // Saying "public" again is fine.
    await f.client.UpdateComment(
      { project_id: project, id: note.id, is_internal: false, content: 'x' },
      f.as('agent'),
    );
  });

  it('delete answers a message; afterwards the comment is 404 everywhere and out of the list', async () => {
    const doomed = await f.newComment(f.ticket, { content: 'Oops' });
    expect(await f.client.DeleteComment({ project_id: project, id: doomed.id }, f.as('agent'))).to.deep.equal(
      {
        message: 'Comment deleted',
      },
    );
    const notFound = { kind: 'not_found', message: 'Comment not found' };
    expect(
      await refusalOf(f.client.GetComment({ project_id: project, id: doomed.id }, f.as('agent'))),
    ).to.deep.equal(notFound);
    expect(
      await refusalOf(
        f.client.UpdateComment({ project_id: project, id: doomed.id, content: 'x' }, f.as('agent')),
      ),
    ).to.deep.equal(notFound);
    expect(
      await refusalOf(f.client.DeleteComment({ project_id: project, id: doomed.id }, f.as('agent'))),
    ).to.deep.equal(notFound);
    const list = await listAll(
      f.client,
      { project_id: project, ticket_id: f.ticket, include_internal: true },
      f.as('agent'),
    );
    expect(list.comments.map((c) => c.id)).not.to.include(doomed.id);
    const { rows } = await f.sql.query('SELECT id FROM comments WHERE id = $1', [doomed.id]);
    expect(rows).to.have.length(0);
  });
});

describe("comments: the ticket must be live in the caller's project", function () {
  this.timeout(60_000);
  const f = suiteFixture(() => startCommentFixture('comments_scope'));

  const ticketNotFound = { kind: 'not_found', message: 'Ticket not found' };
  const commentNotFound = { kind: 'not_found', message: 'Comment not found' };

  it('unknown ticket: list and create are 404 Ticket not found', async () => {
    const request = { project_id: f.support.id, ticket_id: 999_999 };
    expect(
      await refusalOf(listAll(f.client, { ...request, include_internal: true }, f.as('agent'))),
    ).to.deep.equal(ticketNotFound);
    expect(
      await refusalOf(f.client.CreateComment({ ...request, content: 'x' }, f.as('agent'))),
    ).to.deep.equal(ticketNotFound);
  });

  it('a deleted ticket: its comments are 404 (list, create, get, update, delete) and stay untouched', async () => {
    const ticket = await f.newTicket();
    const kept = await f.newComment(ticket, { content: 'Before deletion' });
    await f.tickets.DeleteTicket({ project_id: f.support.id, id: ticket }, f.as('admin'));
    const project_id = f.support.id;
    expect(
      await refusalOf(
        listAll(f.client, { project_id, ticket_id: ticket, include_internal: true }, f.as('admin')),
      ),
    ).to.deep.equal(ticketNotFound);
    expect(
      await refusalOf(f.client.CreateComment({ project_id, ticket_id: ticket, content: 'x' }, f.as('admin'))),
    ).to.deep.equal(ticketNotFound);
    expect(await refusalOf(f.client.GetComment({ project_id, id: kept.id }, f.as('admin')))).to.deep.equal(
      commentNotFound,
    );
    expect(
      await refusalOf(f.client.UpdateComment({ project_id, id: kept.id, content: 'x' }, f.as('admin'))),
    ).to.deep.equal(commentNotFound);
    expect(await refusalOf(f.client.DeleteComment({ project_id, id: kept.id }, f.as('admin')))).to.deep.equal(
      commentNotFound,
    );
    const { rows } = await f.sql.query<{ content: string }>('SELECT content FROM comments WHERE id = $1', [
      kept.id,
    ]);
    expect(rows).to.deep.equal([{ content: 'Before deletion' }]);
    // Restored, the ticket shows its comments again.
    await f.tickets.RestoreTicket({ project_id, id: ticket }, f.as('admin'));
    expect((await f.client.GetComment({ project_id, id: kept.id }, f.as('admin'))).content).to.equal(
      'Before deletion',
    );
  });

  it("another project's ticket and another project's comment id are 404", async () => {
    const platformTicket = await f.newTicket(f.platform);
    const platformComment = await f.client.CreateComment(
      { project_id: f.platform.id, ticket_id: platformTicket, content: 'Platform only' },
      f.as('agent'),
    );
    const project_id = f.support.id;
    expect(
      await refusalOf(
        listAll(f.client, { project_id, ticket_id: platformTicket, include_internal: true }, f.as('admin')),
      ),
    ).to.deep.equal(ticketNotFound);
    expect(
      await refusalOf(
        f.client.CreateComment({ project_id, ticket_id: platformTicket, content: 'x' }, f.as('admin')),
      ),
    ).to.deep.equal(ticketNotFound);
    expect(
      await refusalOf(f.client.GetComment({ project_id, id: platformComment.id }, f.as('admin'))),
    ).to.deep.equal(commentNotFound);
    expect(
      await refusalOf(
        f.client.UpdateComment({ project_id, id: platformComment.id, content: 'x' }, f.as('admin')),
      ),
    ).to.deep.equal(commentNotFound);
    expect(
      await refusalOf(f.client.DeleteComment({ project_id, id: platformComment.id }, f.as('admin'))),
    ).to.deep.equal(commentNotFound);
    // Inside its own project it is there.
    expect(
      (await f.client.GetComment({ project_id: f.platform.id, id: platformComment.id }, f.as('admin')))
        .content,
    ).to.equal('Platform only');
  });

  it('the ticket service being unreachable is 503 for every call, never a 404 or 500', async () => {
    const ticket = await f.newTicket();
    const existing = await f.newComment(ticket);
    const project_id = f.support.id;
    await f.ticketServer.stop();
    const calls = [
      listAll(f.client, { project_id, ticket_id: ticket, include_internal: true }, f.as('agent')),
      f.client.CreateComment({ project_id, ticket_id: ticket, content: 'x' }, f.as('agent')),
      f.client.GetComment({ project_id, id: existing.id }, f.as('agent')),
      f.client.UpdateComment({ project_id, id: existing.id, content: 'y' }, f.as('agent')),
      f.client.DeleteComment({ project_id, id: existing.id }, f.as('agent')),
    ];
    for (const call of calls) expect((await refusalOf(call)).kind).to.equal('unavailable');
    const { rows } = await f.sql.query<{ content: string }>(
      'SELECT content FROM comments WHERE ticket_id = $1',
      [ticket],
    );
    expect(rows).to.deep.equal([{ content: 'A note' }]);
  });
});
