/**
 * ExportUserComments (the data export): every comment the user wrote, of any project, internal notes
 * included, in id order; nobody else's and no deleted one; more than one batch; only the user (or an
 * admin, or operator tooling) may ask; a caller that stops reading holds nothing in the database.
 */
import { expect } from 'chai';
import type { comment } from '@tix/protos';
import type { OutgoingContext } from '@tix/kit';
import { pausedExport, suiteFixture } from '@tix/kit/testing';
import { EXPORT_BATCH_SIZE } from '../../src/export/export-user-comments.js';
import { refusalOf, startCommentFixture } from './support.js';

describe('comments: ExportUserComments', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startCommentFixture('comments_export'));

  const exportOf = async (userId: number, context: OutgoingContext = f.as('agent')) => {
    const found: comment.Comment__Output[] = [];
    for await (const item of f.client.ExportUserComments({ user_id: userId }, context)) found.push(item);
    return found;
  };

  it("streams the user's comments of every project, internal ones included, in id order, and nobody else's", async () => {
    const supportTicket = await f.newTicket();
    const platformTicket = await f.newTicket(f.platform);
    const internal = await f.newComment(supportTicket, { content: 'internal', is_internal: true });
    await f.newComment(supportTicket, { content: 'not mine' }, 'otherAgent');
    const onPlatform = await f.client.CreateComment(
      { project_id: f.platform.id, ticket_id: platformTicket, content: 'public', is_internal: false },
      f.as('agent'),
    );
    const removed = await f.newComment(supportTicket, { content: 'removed' });
    await f.client.DeleteComment({ project_id: f.support.id, id: removed.id }, f.as('agent'));

    const exported = await exportOf(f.users.agent.id);
    expect(exported).to.deep.equal([internal, onPlatform]);
    expect(exported.map((c) => c.is_internal)).to.deep.equal([true, false]);
    expect(await exportOf(f.users.viewer.id, f.as('viewer'))).to.deep.equal([]);
  });

  it('keeps the comments of a ticket deleted since (the user wrote them; a restore shows them again)', async () => {
    const ticketId = await f.newTicket();
    const kept = await f.newComment(ticketId, { content: 'on a ticket deleted later' });
    await f.tickets.DeleteTicket({ project_id: f.support.id, id: ticketId }, f.as('lead'));
    expect((await exportOf(f.users.agent.id)).map((c) => c.id)).to.include(kept.id);
  });

  it('streams a set larger than one batch, all of it, in order', async () => {
    const ticketId = await f.newTicket();
    const count = EXPORT_BATCH_SIZE * 2 + 7;
    await f.sql.query(
      `INSERT INTO comments (project_id, ticket_id, user_id, content, is_internal)
       SELECT $1, $2, $3, 'bulk ' || n, n % 2 = 0 FROM generate_series(1, $4) AS n`,
      [f.support.id, ticketId, f.users.lead.id, count],
    );
    const exported = await exportOf(f.users.lead.id, f.as('lead'));
    expect(exported.length).to.equal(count);
    const ids = exported.map((c) => c.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(count);
  });

  it('is refused to anyone but the user, an admin or operator tooling, and to a project-scoped key', async () => {
    const denied = { kind: 'permission_denied', message: 'You may only export your own data' };
    const firstOf = async (context: OutgoingContext, userId = f.users.agent.id) => {
      for await (const item of f.client.ExportUserComments({ user_id: userId }, context)) return item;
      return null;
    };
    expect(await refusalOf(firstOf(f.as('otherAgent')))).to.deep.equal(denied);
    const scoped = f.as('agent');
    scoped.principal = { ...scoped.principal!, project_id: f.support.id };
    expect(await refusalOf(firstOf(scoped))).to.deep.equal(denied);
    expect(await refusalOf(firstOf(f.as('agent'), 0))).to.deep.equal({
      kind: 'bad_request',
      message: 'Invalid user id',
    });
    expect(await firstOf(f.as('admin'))).to.not.equal(null);
    expect(await firstOf({})).to.not.equal(null);
  });

  it('holds no connection while its caller does not read, and ends (not completes) when it leaves', async () => {
    const call = f.client.raw.ExportUserComments(
      { user_id: f.users.lead.id },
      f.client.callMetadata(f.as('lead')),
      {},
    );
    const { busyConnections, ended } = await pausedExport(call, f.sql);
    expect(busyConnections).to.equal(0);
    expect(ended).to.not.equal(null);
    expect((await exportOf(f.users.lead.id, f.as('lead'))).length).to.equal(EXPORT_BATCH_SIZE * 2 + 7);
  });
});
