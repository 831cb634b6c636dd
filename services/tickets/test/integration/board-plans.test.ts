import { expect } from 'chai';
import { boardQuery } from '../../src/tickets/ticket-read-store.js';
import { startTicketFixture, type TicketFixture } from './support.js';

const LANES = ['open', 'work_in_progress', 'waiting', 'closed'];

/** The board's counts at scale: what lane_counts cannot answer is still read from an index alone. */
describe('tickets: the filtered board counts from indexes', () => {
  let f: TicketFixture;
  const PROJECT = 4545;

  before(async () => {
    f = await startTicketFixture();
    await f.sql.query(
      `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, status, assigned_to, created_by,
                            source_type, lane_rank)
       SELECT $1, 1, g, 'Ticket ' || g, (ARRAY['open', 'work_in_progress', 'waiting', 'closed'])[1 + g % 4],
              1 + g % 10, 1, 'api', 'a' || lpad(g::text, 6, '0')
         FROM generate_series(1, 20000) AS g`,
      [PROJECT],
    );
    // As autovacuum would: the visibility map lets the counts skip the table.
    await f.sql.query('VACUUM ANALYZE tickets');
  });
  after(() => f.stop());

  it("counts one assignee's tickets per lane by an index-only scan", async () => {
    const { text, values } = boardQuery({
      filter: { projectId: PROJECT, assignee: 3 },
      lanes: LANES,
      laneLimit: 50,
    });
    const { rows } = await f.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan, plan).to.contain('Index Only Scan using tickets_assignee_idx');
    expect(plan, plan).to.not.contain('Seq Scan');
  });
});
