import { expect } from 'chai';
import type { OutgoingContext } from '@tix/kit';
import type { Principal } from '@tix/protos';
import { outboxMark, outboxSince, refusalOf, commentSuite } from './support.js';

/** Comments a customer wrote (mail, portal): author_type, customer_id and source_ref. */
describe('comments: customer authors and source_ref (real services)', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_customers');

  /** A system principal running as the agent user (as the mail service runs as Tix Mail). */
  const system = (): OutgoingContext => {
    const principal: Principal = {
      kind: 'system',
      user_id: f.users.agent.id,
      role: 'agent',
      scopes: ['tickets:read', 'tickets:write', 'comments:read', 'comments:write'],
    };
    return { principal };
  };

  it('a staff comment says author_type staff and no customer_id', async () => {
    const created = await f.newComment(f.ticket, { content: 'Staff' });
    expect(created.author_type).to.equal('staff');
    expect(created.customer_id).to.equal(undefined);
  });

  it('a system principal writes as a customer: always public, named in the row, the read and the event', async () => {
    const mark = await outboxMark(f.sql);
    const created = await f.client.CreateComment(
      {
        project_id: f.support.id,
        ticket_id: f.ticket,
        content: 'From the customer',
        is_internal: true,
        customer_id: 42,
      },
      system(),
    );
    expect(created).to.deep.include({ author_type: 'customer', customer_id: 42, is_internal: false });
    expect(created.user_id).to.equal(f.users.agent.id);
    const read = await f.client.GetComment({ project_id: f.support.id, id: created.id }, f.as('viewer'));
    expect(read).to.deep.include({ author_type: 'customer', customer_id: 42 });
    const events = await outboxSince(f.sql, mark);
    expect(events.map((row) => row.event_type)).to.deep.equal(['comment.created']);
    const data = (events[0]!.payload as { data: Record<string, unknown> }).data;
    expect(data).to.include({ author_type: 'customer', customer_id: 42, is_internal: false });
  });

  it('anyone but a system principal is 403 for customer_id and source_ref, and nothing is written', async () => {
    const before = await f.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM comments');
    for (const who of ['admin', 'agent'] as const) {
      expect(
        await refusalOf(
          f.client.CreateComment(
            { project_id: f.support.id, ticket_id: f.ticket, content: 'x', customer_id: 5 },
            f.as(who),
          ),
        ),
      ).to.deep.equal({
        kind: 'permission_denied',
        message: 'Only the mail service or the portal can write a comment as a customer',
      });
      expect(
        await refusalOf(
          f.client.CreateComment(
            { project_id: f.support.id, ticket_id: f.ticket, content: 'x', source_ref: 'mail:1' },
            f.as(who),
          ),
        ),
      ).to.deep.equal({
        kind: 'permission_denied',
        message: 'Only the mail service or the portal can give a source_ref',
      });
    }
    const after = await f.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM comments');
    expect(after.rows[0]!.n).to.equal(before.rows[0]!.n);
  });

  it('a bad customer_id or source_ref is 422 naming the field', async () => {
    const refusal = await refusalOf(
      f.client.CreateComment(
        { project_id: f.support.id, ticket_id: f.ticket, content: 'x', customer_id: -1, source_ref: '' },
        system(),
      ),
    );
    expect(refusal).to.deep.include({ kind: 'validation_failed' });
    expect(refusal.validation_errors).to.have.keys(['customer_id', 'source_ref']);
  });

  it('a repeated source_ref answers the first comment: one row, one event', async () => {
    const mark = await outboxMark(f.sql);
    const request = {
      project_id: f.support.id,
      ticket_id: f.ticket,
      content: 'Once only',
      customer_id: 7,
      source_ref: 'mail:991',
    };
    const [first, second] = await Promise.all([
      f.client.CreateComment(request, system()),
      f.client.CreateComment(request, system()),
    ]);
    const third = await f.client.CreateComment({ ...request, content: 'changed' }, system());
    expect(second.id).to.equal(first.id);
    expect(third).to.deep.equal(first);
    const { rows } = await f.sql.query('SELECT id FROM comments WHERE source_ref = $1', ['mail:991']);
    expect(rows).to.have.length(1);
    expect((await outboxSince(f.sql, mark)).map((row) => row.event_type)).to.deep.equal(['comment.created']);
    // The same ref in another project is another comment.
    const elsewhere = await f.newTicket(f.platform);
    const other = await f.client.CreateComment(
      { ...request, project_id: f.platform.id, ticket_id: elsewhere },
      system(),
    );
    expect(other.id).to.not.equal(first.id);
  });
});
