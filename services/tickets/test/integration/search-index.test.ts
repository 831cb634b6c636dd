import { expect } from 'chai';
import { DEFAULT_SORT } from '../../src/tickets/list-rules.js';
import { SEARCH_TRANSACTION, searchQuery } from '../../src/tickets/ticket-read-store.js';
import { startTicketFixture, type TicketFixture } from './support.js';

/** `q` must be served by the trigram indexes, not a sequential scan of the project's tickets. */
describe('tickets: q uses the trigram indexes', () => {
  let f: TicketFixture;
  const PROJECT = 4242;

  before(async () => {
    f = await startTicketFixture();
    // A few thousand tickets, three of which mention the needle (two in the title, one in the description).
    await f.sql.query(
      `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, description, status, created_by,
                            source_type, lane_rank)
       SELECT $1, 1, g, 'Ticket ' || md5(g::text), 'Body ' || md5((g * 7)::text), 'open', 1, 'api',
              'a' || lpad(g::text, 6, '0')
         FROM generate_series(1, 5000) AS g`,
      [PROJECT],
    );
    await f.sql.query(
      `UPDATE tickets SET title = 'Zebra-Needle in the title ' || id WHERE project_id = $1 AND project_ref_id IN (10, 2000)`,
      [PROJECT],
    );
    await f.sql.query(
      `UPDATE tickets SET description = 'the zebra-needle hides here' WHERE project_id = $1 AND project_ref_id = 4000`,
      [PROJECT],
    );
    // A common word: one ticket in 50 (read with every match, as q does).
    await f.sql.query(
      `UPDATE tickets SET description = description || ' refund' WHERE project_id = $1 AND project_ref_id % 50 = 3`,
      [PROJECT],
    );
    // As autovacuum would: flushes the GIN pending lists (rows inserted after the index was built)
    // and refreshes the statistics the planner costs the indexes with.
    await f.sql.query('VACUUM ANALYZE tickets');
  });
  after(() => f.stop());

  const query = (text = 'zebra-needle') =>
    searchQuery({
      filter: { projectId: PROJECT },
      text,
      sort: DEFAULT_SORT,
      statusOrder: ['open'],
    });

  it('finds the matches in title or description, case-insensitively', async () => {
    const { text, values } = query();
    const { rows } = await f.sql.query<{ projectRefId: number }>(text, values);
    expect(rows.map((row) => row.projectRefId).sort((a, b) => a - b)).to.deep.equal([10, 2000, 4000]);
  });

  it('plans a Bitmap Index Scan on both trigram indexes (no sequential scan)', async () => {
    const { text, values } = query();
    const { rows } = await f.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan, plan).to.contain('Bitmap Index Scan on tickets_title_trgm_idx');
    expect(plan, plan).to.contain('Bitmap Index Scan on tickets_description_trgm_idx');
    expect(plan, plan).to.not.contain('Seq Scan');
  });

  it('plans the search cursor for all its rows: a common word is read through the indexes too', async () => {
    // As the store runs it: a cursor in SEARCH_TRANSACTION. Planned for its first rows, the cursor
    // walks the list index in sort order and filters every ticket of the project instead.
    const { text, values } = query('refund');
    const client = await f.sql.connect();
    try {
      await client.query(SEARCH_TRANSACTION);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN DECLARE search_cursor NO SCROLL CURSOR FOR ${text}`,
        values,
      );
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan, plan).to.contain('Bitmap Index Scan on tickets_description_trgm_idx');
      expect(plan, plan).to.not.match(/Index Scan using tickets_list/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
