import { expect } from 'chai';
import { presentComment, type CommentJson, type EventActor } from '@tix/protos';
import { outboxMark, outboxSince, refusalOf, commentSuite, type OutboxRow } from './support.js';

describe('comments: domain events in the outbox', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_events');

  /** Runs `operation` and returns the outbox rows it wrote. */
  async function written(operation: () => Promise<unknown>): Promise<OutboxRow[]> {
    const mark = await outboxMark(f.sql);
    await operation();
    return outboxSince(f.sql, mark);
  }

  /** Exactly one event of `type`, well formed, for the support project, carrying `data` and the v1.1 envelope. */
  function expectOneEvent(
    rows: OutboxRow[],
    type: string,
    data: CommentJson,
    occurredAt: string,
    envelope: { actor: EventActor; changes: Record<string, { from: unknown; to: unknown }> },
  ) {
    expect(rows.map((row) => row.event_type)).to.deep.equal([type]);
    expect(rows[0]!.payload).to.deep.equal({
      id: rows[0]!.id,
      type,
      source: 'comments',
      project_id: f.support.id,
      occurred_at: occurredAt,
      ...envelope,
      data,
    });
  }

  /** The actor of f.as(who) (an API key principal without a key id). */
  const keyActor = (who: 'agent' | 'lead'): EventActor => ({
    kind: 'api_key',
    user_id: f.users[who].id,
    api_key_id: null,
  });

  it('create: comment.created with the comment exactly as returned', async () => {
    let created: CommentJson | undefined;
    const rows = await written(async () => {
      created = presentComment(
        await f.newComment(f.ticket, { content: 'New', content_html: '<p onclick="x">New</p>' }),
      );
    });
    expectOneEvent(rows, 'comment.created', created!, created!.created_at, {
      actor: keyActor('agent'),
      changes: {},
    });
    expect(created!.content_html).to.equal('<p>New</p>');
  });

  it('update: comment.updated with the comment after the change; a no-op update writes nothing', async () => {
    const original = await f.newComment(f.ticket, { content: 'Before', is_internal: true });
    let updated: CommentJson | undefined;
    // Through a browser session: the actor is the user.
    const session = { principal: { ...f.as('agent').principal!, kind: 'session' as const } };
    let rows = await written(async () => {
      updated = presentComment(
        await f.client.UpdateComment(
          { project_id: f.support.id, id: original.id, content: 'After', is_internal: false },
          session,
        ),
      );
    });
    expectOneEvent(rows, 'comment.updated', updated!, updated!.updated_at, {
      actor: { kind: 'user', user_id: f.users.agent.id, api_key_id: null },
      changes: { content: { from: 'Before', to: 'After' }, is_internal: { from: true, to: false } },
    });
    rows = await written(async () => {
      const same = await f.client.UpdateComment(
        { project_id: f.support.id, id: original.id, content: 'After', is_internal: false },
        f.as('agent'),
      );
      expect(presentComment(same)).to.deep.equal(updated);
    });
    expect(rows).to.deep.equal([]);
  });

  it('delete: comment.deleted with the comment as it was', async () => {
    const doomed = presentComment(await f.newComment(f.ticket, { content: 'Bye' }));
    const before = new Date().toISOString();
    const rows = await written(() =>
      f.client.DeleteComment({ project_id: f.support.id, id: doomed.id }, f.as('agent')),
    );
    expect(rows.map((row) => row.event_type)).to.deep.equal(['comment.deleted']);
    expect(rows[0]!.payload).to.deep.include({
      source: 'comments',
      project_id: f.support.id,
      actor: keyActor('agent'),
      changes: {},
      data: doomed,
    });
    expect(rows[0]!.payload.occurred_at >= doomed.created_at).to.be.true;
    expect(rows[0]!.payload.occurred_at.slice(0, 10)).to.equal(before.slice(0, 10));
  });

  it('refused operations write no event', async () => {
    const comment = await f.newComment(f.ticket, { content: 'Public', is_internal: false });
    const rows = await written(async () => {
      await refusalOf(f.newComment(f.ticket, { content: '' }));
      await refusalOf(f.newComment(999_999, { content: 'x' }));
      await refusalOf(
        f.client.UpdateComment(
          { project_id: f.support.id, id: comment.id, is_internal: true },
          f.as('agent'),
        ),
      );
      await refusalOf(
        f.client.UpdateComment({ project_id: f.support.id, id: comment.id, content: 'x' }, f.as('viewer')),
      );
      await refusalOf(f.client.DeleteComment({ project_id: f.support.id, id: comment.id }, f.as('lead')));
    });
    expect(rows).to.deep.equal([]);
  });

  it('every event id is unique', async () => {
    const { rows } = await f.sql.query<{ count: string; distinct: string }>(
      'SELECT count(*) AS count, count(DISTINCT id) AS distinct FROM outbox_events',
    );
    expect(Number(rows[0]!.count)).to.be.greaterThan(0);
    expect(rows[0]!.distinct).to.equal(rows[0]!.count);
  });
});
