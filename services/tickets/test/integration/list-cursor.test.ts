import { expect } from 'chai';
import { TICKET_SORT_FIELDS, type ticket } from '@tix/protos';
import { CURSOR_OF_ANOTHER_QUERY, CURSOR_WITH_PAGE } from '../../src/tickets/list-cursor.js';
import { parseSort, type SortOrder, type TicketFilter } from '../../src/tickets/list-rules.js';
import {
  createTicketReadStore,
  keysetPageQuery,
  listPageQuery,
  type KeysetRow,
} from '../../src/tickets/ticket-read-store.js';
import { refusalOf, startTicketFixture, type TicketFixture, ticketsOf } from './support.js';

const STATUS_ORDER = ['open', 'work_in_progress', 'waiting', 'closed'];
const SORTS = TICKET_SORT_FIELDS.flatMap((field) => [`+${field}`, `-${field}`]);

/**
 * The cursor mode's keyset query against the offset query it must agree with: walking every page
 * after the last row of the previous one lists exactly the offset mode's order, for every sort,
 * on data full of ties (equal titles in different case, times, priorities), unassigned tickets, a
 * status the workflow no longer has and deleted tickets; and each page is an index scan.
 */
describe('tickets: the list cursor mode (keyset pages)', () => {
  let f: TicketFixture;
  const PROJECT = 4343;
  const COUNT = 2000;

  before(async () => {
    f = await startTicketFixture();
    await f.sql.query(
      `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, status, priority, assigned_to,
                            created_by, source_type, lane_rank, created_at, updated_at, deleted_at)
       SELECT $1, 1, g,
              (ARRAY['Alpha', 'alpha', 'Beta', 'beta', 'Zed', 'ärger', 'Éclair'])[1 + g % 7] || ' ' || (g % 5),
              (ARRAY['open', 'work_in_progress', 'waiting', 'closed', 'legacy'])[1 + g % 5],
              (ARRAY['low', 'medium', 'high', 'critical'])[1 + g % 4]::ticket_priority,
              CASE WHEN g % 3 = 0 THEN NULL ELSE 1 + g % 4 END,
              1, 'api', 'a' || lpad(g::text, 6, '0'),
              timestamptz '2026-01-01' + (g % 50) * interval '1 millisecond',
              timestamptz '2026-01-01' + (g % 7) * interval '1 second',
              CASE WHEN g % 97 = 0 THEN now() END
         FROM generate_series(1, $2::int) AS g`,
      [PROJECT, COUNT],
    );
    await f.sql.query('VACUUM ANALYZE tickets');
  });
  after(() => f.stop());

  const everyId = async (filter: TicketFilter, sort: SortOrder) => {
    const { text, values } = listPageQuery({
      filter,
      sort,
      statusOrder: STATUS_ORDER,
      limit: 100_000,
      offset: 0,
    });
    const { rows } = await f.sql.query<{ id: number | null }>(text, values);
    return rows.map((row) => row.id).filter((id) => id !== null);
  };

  const walk = async (filter: TicketFilter, sort: SortOrder, perPage: number) => {
    const store = createTicketReadStore(f.sql);
    const seen: number[] = [];
    let after: KeysetRow | undefined;
    for (;;) {
      const rows = await store.listAfter({
        filter,
        sort,
        statusOrder: STATUS_ORDER,
        limit: perPage,
        after: after ? { key: after.sortKey, id: after.id } : null,
      });
      seen.push(...rows.map((row) => row.id));
      if (rows.length < perPage) return seen;
      after = rows.at(-1);
    }
  };

  for (const sortText of SORTS) {
    it(`walks ${sortText} page after page in the offset order, each ticket once`, async () => {
      const sort = parseSort(sortText);
      const expected = await everyId({ projectId: PROJECT }, sort);
      expect(expected).to.have.length(COUNT - Math.floor(COUNT / 97));
      expect(await walk({ projectId: PROJECT }, sort, 97)).to.deep.equal(expected);
    });
  }

  it('keeps the filters on every page (status, unassigned, deleted only)', async () => {
    for (const filter of [
      { projectId: PROJECT, status: 'legacy' },
      { projectId: PROJECT, unassigned: true as const },
      { projectId: PROJECT, deletedOnly: true as const, priority: 'high' as const },
    ]) {
      for (const sortText of ['-status', '+assigned_to', '-title']) {
        const sort = parseSort(sortText);
        const expected = await everyId(filter, sort);
        expect(expected.length, JSON.stringify(filter)).to.be.greaterThan(0);
        expect(await walk(filter, sort, 13), `${JSON.stringify(filter)} ${sortText}`).to.deep.equal(expected);
      }
    }
  });

  it('reads a later page of every sort by index, without scanning or sorting the project', async () => {
    const store = createTicketReadStore(f.sql);
    for (const sortText of SORTS) {
      const sort = parseSort(sortText);
      // A position in the middle of the list.
      const middle = (
        await store.listAfter({
          filter: { projectId: PROJECT },
          sort,
          statusOrder: STATUS_ORDER,
          limit: COUNT / 2,
          after: null,
        })
      ).at(-1);
      const { text, values } = keysetPageQuery({
        filter: { projectId: PROJECT },
        sort,
        statusOrder: STATUS_ORDER,
        limit: 51,
        after: { key: middle!.sortKey, id: middle!.id },
      });
      const { rows } = await f.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      if (process.env.SHOW_PLANS) console.log(sortText, plan);
      expect(plan, `${sortText}\n${plan}`).to.not.contain('Seq Scan');
      expect(plan, `${sortText}\n${plan}`).to.not.match(/Bitmap Heap Scan/);
      // The only Sort is the outer one over the branches' few rows, never one under a branch.
      expect(plan.match(/Sort(?! Key)/g) ?? [], `${sortText}\n${plan}`).to.have.length.at.most(1);
    }
  });

  it('finds a deep offset page of the default sorts in the index alone, then reads its rows', async () => {
    for (const sortText of ['-created_at', '+id', '-updated_at']) {
      const { text, values } = listPageQuery({
        filter: { projectId: PROJECT },
        sort: parseSort(sortText),
        statusOrder: STATUS_ORDER,
        limit: 50,
        offset: 1500,
      });
      const { rows } = await f.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      // Walking the offset by index entries, not rows: what keeps page 2,000 cheap at scale.
      // (How the 50 rows are then read is the planner's choice: on a table this small, a scan.)
      expect(plan, `${sortText}\n${plan}`).to.match(/Index Only Scan using tickets_list_\w+ on tickets/);
    }
  });
});

/** Cursor mode through ListTickets: first page, next_cursor, the end, and the refusals. */
describe('tickets: ListTickets in cursor mode', () => {
  let f: TicketFixture;
  let project: number;
  let other: number;
  let type: number;

  const create = async (title: string, projectId = project) =>
    f.client.CreateTicket(
      { project_id: projectId, ticket_type_id: type, title, tags: [], custom_fields_json: '' },
      f.agent,
    );
  const list = (request: Partial<ticket.ListTicketsRequest>) =>
    f.client.ListTickets({ project_id: project, sort: '', ...request }, f.agent);

  before(async () => {
    f = await startTicketFixture();
    project = (await f.lookup.CreateProject({ name: 'Cursors', slug: 'cursors', prefix: 'CUR' })).id;
    other = (await f.lookup.CreateProject({ name: 'Others', slug: 'others', prefix: 'OTH' })).id;
    type = (await f.lookup.CreateTicketType({ project_id: project, name: 'Task', slug: 'task' })).id;
    await f.lookup.CreateTicketType({ project_id: other, name: 'Task', slug: 'task' });
    for (let n = 1; n <= 7; n++) await create(`Ticket ${n}`);
  });
  after(() => f.stop());

  it('pages with next_cursor until the last page, which has none; no pagination object', async () => {
    const first = await list({ cursor: '', page: { per_page: 3 } });
    expect(first.pagination).to.equal(null);
    expect(ticketsOf(first).map((t) => t.title)).to.deep.equal(['Ticket 7', 'Ticket 6', 'Ticket 5']);
    expect(first.next_cursor)
      .to.be.a('string')
      .and.match(/^[A-Za-z0-9_-]+$/);
    const second = await list({ cursor: first.next_cursor!, page: { per_page: 3 } });
    expect(ticketsOf(second).map((t) => t.title)).to.deep.equal(['Ticket 4', 'Ticket 3', 'Ticket 2']);
    // Exactly one left: the last page says there is no next one (no empty page to fetch).
    const third = await list({ cursor: second.next_cursor!, page: { per_page: 3 } });
    expect(ticketsOf(third).map((t) => t.title)).to.deep.equal(['Ticket 1']);
    expect(third.next_cursor ?? undefined).to.equal(undefined);
    const exact = await list({ cursor: '', page: { per_page: 7 } });
    expect(ticketsOf(exact)).to.have.length(7);
    expect(exact.next_cursor ?? undefined).to.equal(undefined);
  });

  it('lists every ticket that existed at the first page exactly once while tickets are added', async () => {
    for (const sort of ['-created_at', '+created_at', '-id', '+title']) {
      const before = ticketsOf(await list({ sort, page: { per_page: 100 } })).map((t) => t.id);
      const seen: number[] = [];
      let cursor = '';
      for (let pageNumber = 0; ; pageNumber++) {
        const page = await list({ sort, cursor, page: { per_page: 2 } });
        seen.push(...ticketsOf(page).map((t) => t.id));
        await create(`Added ${sort} ${pageNumber}`);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      const old = seen.filter((id) => before.includes(id));
      expect(old, sort).to.deep.equal(before);
      expect(new Set(seen).size, sort).to.equal(seen.length);
    }
  });

  it('refuses a malformed cursor with 400 Invalid cursor', async () => {
    const { next_cursor: cursor } = await list({ cursor: '', page: { per_page: 1 } });
    const json = Buffer.from(cursor!, 'base64url').toString();
    for (const bad of [
      'nope',
      '!!!',
      `${cursor}=`,
      cursor!.slice(0, -2),
      Buffer.from(json.replace('{', '{ ')).toString('base64url'),
      Buffer.from(json.replace(/"i":\d+/, '"i":0')).toString('base64url'),
      Buffer.from(json.replace(/"i":\d+/, '"i":"5"')).toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      'x'.repeat(20_000),
    ]) {
      expect(await refusalOf(list({ cursor: bad })), bad).to.deep.equal({
        kind: 'bad_request',
        message: 'Invalid cursor',
        validation_errors: { cursor: ['Invalid cursor'] },
      });
    }
    // A key of the wrong type for the sort (a title's key where a time belongs) is no position.
    const titled = (await list({ cursor: '', sort: 'title', page: { per_page: 1 } })).next_cursor!;
    const retyped = Buffer.from(titled, 'base64url')
      .toString()
      .replace(/"k":"[^"]*"/, '"k":42');
    expect(
      (await refusalOf(list({ cursor: Buffer.from(retyped).toString('base64url'), sort: 'title' }))).message,
    ).to.equal('Invalid cursor');
  });

  it('refuses a cursor of another sort, other filters or another project, and cursor with page', async () => {
    const { next_cursor: cursor } = await list({ cursor: '', page: { per_page: 1 } });
    const anotherQuery = {
      kind: 'bad_request',
      message: 'Invalid cursor',
      validation_errors: { cursor: [CURSOR_OF_ANOTHER_QUERY] },
    };
    expect(await refusalOf(list({ cursor, sort: '+created_at' }))).to.deep.equal(anotherQuery);
    expect(await refusalOf(list({ cursor, status: 'open' }))).to.deep.equal(anotherQuery);
    expect(await refusalOf(list({ cursor, unassigned: true }))).to.deep.equal(anotherQuery);
    expect(await refusalOf(list({ cursor, project_id: other }))).to.deep.equal(anotherQuery);
    // The same query spelt differently is the same query.
    expect(ticketsOf(await list({ cursor, sort: '-created_at' }))).to.have.length.greaterThan(0);
    expect(await refusalOf(list({ cursor, page: { page: 2, per_page: 1 } }))).to.deep.equal({
      kind: 'bad_request',
      message: 'Invalid cursor',
      validation_errors: { cursor: [CURSOR_WITH_PAGE] },
    });
  });
});
