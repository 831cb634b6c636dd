import { expect } from 'chai';
import { type ticket } from '@tix/protos';
import {
  refusalOf,
  searchAll,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

describe('tickets: GetTicket and ListTickets', () => {
  let f: TicketFixture;
  let project: number;
  /** Tickets of the `lists` project by title. */
  const made = new Map<string, ticket.ApiTicket__Output>();

  const ids = (page: ticket.TicketPage__Output) => ticketsOf(page).map((t) => t.id);
  const titles = (page: ticket.TicketPage__Output) => ticketsOf(page).map((t) => t.title);
  const list = (request: Partial<ticket.ListTicketsRequest>) =>
    f.client.ListTickets({ project_id: project, ...request }, f.agent);

  before(async () => {
    f = await startTicketFixture();
    const created = await f.lookup.CreateProject({ name: 'Lists', slug: 'lists', prefix: 'LST' });
    project = created.id;
    const type = await f.lookup.CreateTicketType({ project_id: project, name: 'Task', slug: 'task' });
    const specs: [string, string, string | undefined, number | undefined, string[]][] = [
      ['Alpha printer', 'low', undefined, f.demo.users.agent.id, ['hardware']],
      ['bravo 50% off', 'critical', 'The discount_code field is empty', undefined, []],
      ['Charlie login', 'high', 'Cannot LOG IN since Monday', f.demo.users.lead.id, ['auth', 'vip']],
      ['delta', 'medium', undefined, f.demo.users.agent.id, ['vip']],
      ['Echo', 'high', 'printer jam', undefined, []],
    ];
    for (const [title, priority, description, assigned_to, tags] of specs) {
      const t = await f.client.CreateTicket(
        {
          project_id: project,
          ticket_type_id: type.id,
          title,
          priority,
          description,
          assigned_to,
          tags,
          custom_fields_json: '',
        },
        f.agent,
      );
      made.set(title, t);
    }
    // Statuses in workflow order: open < work_in_progress < waiting < closed.
    await f.client.MoveTicket(
      { project_id: project, id: made.get('Alpha printer')!.id, status: 'closed' },
      f.agent,
    );
    await f.client.MoveTicket({ project_id: project, id: made.get('delta')!.id, status: 'waiting' }, f.agent);
    await f.client.MoveTicket(
      { project_id: project, id: made.get('Echo')!.id, status: 'work_in_progress' },
      f.agent,
    );
  });
  after(() => f.stop());

  describe('GetTicket', () => {
    it('returns the live ticket of the project', async () => {
      const t = made.get('delta')!;
      const got = await f.client.GetTicket({ project_id: project, id: t.id }, f.agent);
      expect(ticketOf(got)).to.deep.include({ id: t.id, title: 'delta', status: 'waiting', version: 2 });
    });

    it('answers 404 for unknown ids, other projects and impossible ids', async () => {
      const t = made.get('delta')!;
      for (const request of [
        { project_id: project, id: 999_999 },
        { project_id: f.demo.support.id, id: t.id },
        { project_id: project, id: 0 },
        { project_id: project, id: -5 },
      ]) {
        expect(await refusalOf(f.client.GetTicket(request, f.agent))).to.deep.equal({
          kind: 'not_found',
          message: 'Ticket not found',
        });
      }
    });

    it('answers 404 Project not found for an unknown project', async () => {
      expect(await refusalOf(f.client.GetTicket({ project_id: 777, id: 1 }, f.agent))).to.deep.equal({
        kind: 'not_found',
        message: 'Project not found',
      });
    });
  });

  describe('ListTickets', () => {
    it('defaults to -created_at, page 1 of 50, with pagination', async () => {
      const page = await list({});
      expect(titles(page)).to.deep.equal([
        'Echo',
        'delta',
        'Charlie login',
        'bravo 50% off',
        'Alpha printer',
      ]);
      expect(page.pagination).to.deep.equal({ total: 5, page: 1, per_page: 50, total_pages: 1 });
      expect(ticketsOf(page)).to.deep.equal(
        await Promise.all(
          ids(page).map(async (id) =>
            ticketOf(await f.client.GetTicket({ project_id: project, id }, f.agent)),
          ),
        ),
      );
    });

    it('sorts by every allowed field in both directions, ties broken by id', async () => {
      const sorted = async (sort: string) => titles(await list({ sort }));
      expect(await sorted('id')).to.deep.equal([
        'Alpha printer',
        'bravo 50% off',
        'Charlie login',
        'delta',
        'Echo',
      ]);
      expect(await sorted('-id')).to.deep.equal([
        'Echo',
        'delta',
        'Charlie login',
        'bravo 50% off',
        'Alpha printer',
      ]);
      expect(await sorted('+created_at')).to.deep.equal(await sorted('id'));
      // Case-insensitive.
      expect(await sorted('title')).to.deep.equal([
        'Alpha printer',
        'bravo 50% off',
        'Charlie login',
        'delta',
        'Echo',
      ]);
      expect(await sorted('-title')).to.deep.equal([
        'Echo',
        'delta',
        'Charlie login',
        'bravo 50% off',
        'Alpha printer',
      ]);
      // Severity order, not alphabetical; equal priorities by id.
      expect(await sorted('priority')).to.deep.equal([
        'Alpha printer',
        'delta',
        'Charlie login',
        'Echo',
        'bravo 50% off',
      ]);
      expect(await sorted('-priority')).to.deep.equal([
        'bravo 50% off',
        'Echo',
        'Charlie login',
        'delta',
        'Alpha printer',
      ]);
      // Workflow order: open, work_in_progress, waiting, closed.
      expect(await sorted(' status')).to.deep.equal([
        'bravo 50% off',
        'Charlie login',
        'Echo',
        'delta',
        'Alpha printer',
      ]);
      expect(await sorted('-status')).to.deep.equal([
        'Alpha printer',
        'delta',
        'Echo',
        'Charlie login',
        'bravo 50% off',
      ]);
      // Unassigned last in both directions.
      const agent = f.demo.users.agent.id;
      const lead = f.demo.users.lead.id;
      const byAssignee =
        agent < lead
          ? ['Alpha printer', 'delta', 'Charlie login', 'bravo 50% off', 'Echo']
          : ['Charlie login', 'Alpha printer', 'delta', 'bravo 50% off', 'Echo'];
      expect(await sorted('assigned_to')).to.deep.equal(byAssignee);
      // The last updated ticket was moved last.
      expect((await sorted('-updated_at'))[0]).to.equal('Echo');
    });

    it('filters by status, priority, assignee and tag (combined with AND)', async () => {
      expect(titles(await list({ status: 'open' }))).to.deep.equal(['Charlie login', 'bravo 50% off']);
      expect(titles(await list({ priority: 'high' }))).to.deep.equal(['Echo', 'Charlie login']);
      expect(titles(await list({ assignee: f.demo.users.agent.id }))).to.deep.equal([
        'delta',
        'Alpha printer',
      ]);
      expect(titles(await list({ tag: 'VIP' }))).to.deep.equal(['delta', 'Charlie login']);
      const combined = await list({ tag: 'vip', assignee: f.demo.users.agent.id, priority: 'medium' });
      expect(titles(combined)).to.deep.equal(['delta']);
      expect(combined.pagination!.total).to.equal(1);
      expect((await list({ assignee: 424242 })).pagination).to.deep.equal({
        total: 0,
        page: 1,
        per_page: 50,
        total_pages: 0,
      });
    });

    it('pages, and a page beyond the last is empty with correct totals', async () => {
      const second = await list({ page: { page: 2, per_page: 2 }, sort: 'id' });
      expect(titles(second)).to.deep.equal(['Charlie login', 'delta']);
      expect(second.pagination).to.deep.equal({ total: 5, page: 2, per_page: 2, total_pages: 3 });
      for (const page of [4, 2_147_483_647]) {
        const beyond = await list({ page: { page, per_page: 2 } });
        expect(ticketsOf(beyond)).to.deep.equal([]);
        expect(beyond.pagination).to.deep.equal({ total: 5, page, per_page: 2, total_pages: 3 });
      }
    });

    it('clamps per_page into 1..100', async () => {
      expect((await list({ page: { page: 1, per_page: 500 } })).pagination!.per_page).to.equal(100);
      expect((await list({ page: { page: 1, per_page: -1 } })).pagination!.per_page).to.equal(1);
    });

    it('SearchTickets: case-insensitive substring of title or description, every match, in sort order', async () => {
      const search = async (q: string, extra: Partial<ticket.SearchTicketsRequest> = {}) =>
        (await searchAll(f, { project_id: project, q, ...extra })).map((t) => t.title);
      expect(await search('PRINTER')).to.deep.equal(['Echo', 'Alpha printer']);
      expect(await search('log in')).to.deep.equal(['Charlie login']);
      expect(await search('printer', { sort: 'id' })).to.deep.equal(['Alpha printer', 'Echo']);
      expect(await search('printer', { status: 'closed' })).to.deep.equal(['Alpha printer']);
      // LIKE's wildcards are taken literally.
      expect(await search('50%')).to.deep.equal(['bravo 50% off']);
      expect(await search('%')).to.deep.equal(['bravo 50% off']);
      expect(await search('discount_code')).to.deep.equal(['bravo 50% off']);
      expect(await search('_')).to.deep.equal(['bravo 50% off']);
      expect(await search('nothing like this')).to.deep.equal([]);
    });

    it('refuses bad parameters with 400 naming the parameter', async () => {
      const cases: [Partial<ticket.ListTicketsRequest>, string][] = [
        [{ sort: '-description' }, 'sort'],
        [{ sort: 'nonsense' }, 'sort'],
        [{ status: 'triage' }, 'status'],
        [{ priority: 'urgent' }, 'priority'],
        [{ tag: 'a\u0000' }, 'tag'],
      ];
      for (const [request, parameter] of cases) {
        const refusal = await refusalOf(list(request));
        expect(refusal, JSON.stringify(request)).to.deep.include({
          kind: 'bad_request',
          message: `Invalid ${parameter}`,
        });
        expect(Object.keys(refusal.validation_errors as object)).to.deep.equal([parameter]);
      }
      for (const q of ['', 'x'.repeat(201), 'a\u0000b']) {
        const refusal = await refusalOf(searchAll(f, { project_id: project, q }));
        expect(refusal, JSON.stringify(q)).to.deep.include({ kind: 'bad_request', message: 'Invalid q' });
      }
    });

    it('SearchTickets streams every match, also far more than one batch', async () => {
      const many = Array.from({ length: 1_234 }, (_, i) => `needle-${i}`);
      await f.sql.query(
        `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, status, priority,
           created_by, source_type, lane_rank)
         SELECT $1, t.ticket_type_id, 100000 + n, 'haystack ' || title, 'open', 'low',
                t.created_by, 'api', 'zz' || lpad(n::text, 6, '0')
           FROM unnest($2::text[]) WITH ORDINALITY AS m(title, n),
                (SELECT ticket_type_id, created_by FROM tickets WHERE project_id = $1 LIMIT 1) t`,
        [project, many],
      );
      const found = await searchAll(f, { project_id: project, q: 'haystack needle', sort: '+id' });
      expect(found).to.have.length(1_234);
      expect(found.map((t) => t.title)).to.deep.equal(many.map((title) => `haystack ${title}`));

      // SearchTicketsJson: the same matches as the API's JSON, one message per batch of the cursor.
      const batches: Buffer[] = [];
      const request = { project_id: project, q: 'haystack needle', sort: '+id' };
      for await (const batch of f.client.SearchTicketsJson(request, f.agent))
        batches.push(batch.tickets_json);
      expect(batches.map((batch) => (JSON.parse(batch.toString('utf8')) as unknown[]).length)).to.deep.equal([
        500, 500, 234,
      ]);
      const joined = `[${batches.map((batch) => batch.toString('utf8').slice(1, -1)).join(',')}]`;
      expect(joined).to.equal(JSON.stringify(found));
      for (const index of [0, 617, 1_233]) {
        const single = await f.client.GetTicket({ project_id: project, id: found[index]!.id }, f.agent);
        expect(JSON.stringify(found[index])).to.equal(single.json.toString('utf8'));
      }
    });
  });

  it('answers a page as one JSON array of its tickets, each byte for byte as GetTicket answers it, offset and cursor', async () => {
    for (const request of [
      { sort: '-id', page: { page: 1, per_page: 3 } },
      { sort: '+title', cursor: '' },
    ]) {
      const json = await list(request);
      const single = await Promise.all(
        ticketsOf(json).map((t) => f.client.GetTicket({ project_id: t.project_id, id: t.id }, f.agent)),
      );
      expect(single).to.not.be.empty;
      expect(json.tickets_json.toString('utf8')).to.equal(
        `[${single.map((answer) => answer.json.toString('utf8')).join(',')}]`,
      );
      expect(json.pagination === null || json.pagination === undefined).to.equal('cursor' in request);
    }
  });
});
