import { expect } from 'chai';
import { commentSuite, listAll } from './support.js';

describe('comments: the list returns at most the oldest 1000', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_limit');

  before(async () => {
    // 1001 comments seeded in SQL, created one second apart, inserted in a shuffled order so that
    // neither id order nor insertion order matches time order; every third one is public.
    const order = Array.from({ length: 1001 }, (_, index) => index).sort(
      (a, b) => ((a * 7919) % 1001) - ((b * 7919) % 1001),
    );
    await f.sql.query(
      `INSERT INTO comments (project_id, ticket_id, user_id, content, is_internal, created_at, updated_at)
       SELECT $1, $2, $3, 'comment ' || n, n % 3 <> 0,
              timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second',
              timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second'
         FROM unnest($4::int[]) AS n`,
      [f.support.id, f.ticket, f.users.agent.id, order],
    );
  });

  it('1001 comments -> the 1000 oldest, in time order, count 1000', async () => {
    const list = await listAll(
      f.client,
      { project_id: f.support.id, ticket_id: f.ticket, include_internal: true },
      f.as('agent'),
    );
    expect(list.count).to.equal(1000);
    expect(list.ticket_id).to.equal(f.ticket);
    expect(list.comments.map((c) => c.content)).to.deep.equal(
      Array.from({ length: 1000 }, (_, n) => `comment ${n}`),
    );
    expect(list.comments.map((c) => c.created_at)).to.deep.equal(
      Array.from({ length: 1000 }, (_, n) =>
        new Date(Date.parse('2026-01-01T00:00:00Z') + n * 1000).toISOString(),
      ),
    );
  });

  it('equal timestamps are ordered by id', async () => {
    const other = await f.newTicket();
    await f.sql.query(
      `INSERT INTO comments (project_id, ticket_id, user_id, content, created_at, updated_at)
       SELECT $1, $2, $3, 'same ' || n, timestamptz '2026-01-01Z', timestamptz '2026-01-01Z'
         FROM generate_series(1, 5) AS n`,
      [f.support.id, other, f.users.agent.id],
    );
    const list = await listAll(
      f.client,
      { project_id: f.support.id, ticket_id: other, include_internal: true },
      f.as('agent'),
    );
    const ids = list.comments.map((c) => c.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(list.comments.map((c) => c.content)).to.deep.equal([
      'same 1',
      'same 2',
      'same 3',
      'same 4',
      'same 5',
    ]);
  });

  it('include_internal false: the oldest public comments (the limit applies to what is shown)', async () => {
    const list = await listAll(
      f.client,
      { project_id: f.support.id, ticket_id: f.ticket, include_internal: false },
      f.as('agent'),
    );
    const expected = Array.from({ length: 1001 }, (_, n) => n).filter((n) => n % 3 === 0);
    expect(list.count).to.equal(expected.length);
    expect(list.comments.map((c) => c.content)).to.deep.equal(expected.map((n) => `comment ${n}`));
    expect(list.comments.every((c) => !c.is_internal)).to.be.true;
  });
});
