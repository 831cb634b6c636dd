/**
 * The ticket list's cursor mode through the fleet: walking every page by its
 * `Link: rel="next"` while other clients keep filing tickets lists each ticket that existed at the
 * first page exactly once, in the offset mode's order; offset pages keep their answer and gain
 * `Link`; a cursor that is no cursor, or one used with other filters, another sort or `page`, is 400.
 */
import { expect } from 'chai';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request, type ApiResponse } from '../support/http.js';
import { signIn } from '../support/session.js';

interface Ticket {
  id: number;
  title: string;
}

const PASSWORD = 'ticket cursor e2e passphrase';

/** The Link header as { rel: target }. */
function linksOf(response: ApiResponse): Record<string, string> {
  const header = response.headers.get('link');
  if (header === null) return {};
  return Object.fromEntries(
    header.split(', ').map((part) => {
      const match = /^<([^>]+)>; rel="([a-z]+)"$/.exec(part);
      expect(match, `a link-value of RFC 8288: ${part}`).to.not.equal(null);
      return [match![2]!, match![1]!];
    }),
  );
}

describe('ticket list: cursor mode', function () {
  let project: ProjectFixture;
  let typeId: number;
  let key: string;
  const TITLES = ['kiwi', 'Apple', 'banana', 'apple', 'Cherry', 'date', 'Elder', 'fig', 'Grape'];
  const EXISTING = 30;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    key = (await createKey({ project: project.slug })).key;
    for (let n = 0; n < EXISTING; n++)
      await createTicket<Ticket>(key, {
        ticket_type_id: typeId,
        title: `${TITLES[n % TITLES.length]} ${n % 4}`,
      });
  });

  const get = (path: string) => request(path, { key });
  /** Every ticket of the list in offset mode, page by page (nothing is filed meanwhile). */
  const everyTicket = async (query: string) => {
    const ids: number[] = [];
    for (let page = 1; ; page++) {
      const response = await get(`/v1/tickets?${query}&per_page=100&page=${page}`);
      expect(response.status, response.text).to.equal(200);
      ids.push(...(response.body.data.tickets as Ticket[]).map((ticket) => ticket.id));
      if (page >= response.body.data.pagination.total_pages) return ids;
    }
  };

  /** Walks from the first cursor page by rel="next" until there is none; answers every id in order. */
  const walk = async (first: string) => {
    const seen: number[] = [];
    let next: string | undefined = first;
    for (let pages = 0; next !== undefined; pages++) {
      expect(pages, 'the walk ends').to.be.below(100);
      const response = await get(next);
      expect(response.status, response.text).to.equal(200);
      expect(response.body.data).to.not.have.property('pagination');
      seen.push(...(response.body.data.tickets as Ticket[]).map((ticket) => ticket.id));
      const links = linksOf(response);
      expect(links.first).to.match(/[?&]cursor=$/);
      next = links.next;
      // next_cursor and the next link say the same thing.
      const cursor = response.body.data.next_cursor as string | null;
      if (cursor === null) expect(next).to.equal(undefined);
      else expect(next).to.contain(`cursor=${cursor}`);
    }
    return seen;
  };

  for (const sort of ['-created_at', '%2Bcreated_at', 'title', '-priority']) {
    it(`walks every page (sort=${sort}) while tickets are filed: each existing ticket once, in order`, async () => {
      const before = await everyTicket(`sort=${sort}`);
      expect(before.length).to.be.at.least(EXISTING);
      let walking = true;
      const filed: number[] = [];
      const filing = (async () => {
        for (let n = 0; walking; n++) {
          const title = `${TITLES[n % TITLES.length]} concurrent ${sort} ${n}`;
          filed.push((await createTicket<Ticket>(key, { ticket_type_id: typeId, title })).id);
        }
      })();
      let seen: number[];
      try {
        seen = await walk(`/v1/tickets?sort=${sort}&per_page=4&cursor=`);
      } finally {
        walking = false;
        await filing;
      }
      expect(filed.length, 'tickets were filed during the walk').to.be.above(0);
      expect(new Set(seen).size, 'no ticket twice').to.equal(seen.length);
      expect(
        seen.filter((id) => before.includes(id)),
        'every ticket that existed, once, in order',
      ).to.deep.equal(before);
      // Nothing else: what the walk shows beyond them was filed meanwhile.
      expect(seen.filter((id) => !before.includes(id)).every((id) => filed.includes(id))).to.equal(true);
    });
  }

  it('keeps the filters on every page, and links carry them', async () => {
    const expected = await everyTicket('sort=id&priority=medium&assignee=none');
    const seen = await walk('/v1/tickets?priority=medium&assignee=none&sort=id&per_page=7&cursor=');
    expect(seen.filter((id) => expected.includes(id))).to.deep.equal(expected);
    const first = await get('/v1/tickets?priority=medium&per_page=2&cursor=');
    expect(linksOf(first).next).to.match(/^\/v1\/tickets\?priority=medium&per_page=2&cursor=[A-Za-z0-9_-]+$/);
  });

  it('offset pages answer as before, with Link to next, prev, first and last', async () => {
    const total = (await get('/v1/tickets?per_page=100')).body.data.pagination.total as number;
    const response = await get(`/v1/tickets?per_page=5&page=2&sort=id`);
    expect(response.status).to.equal(200);
    expect(Object.keys(response.body.data)).to.deep.equal(['tickets', 'pagination']);
    const last = Math.ceil(total / 5);
    expect(response.body.data.pagination).to.deep.equal({ total, page: 2, per_page: 5, total_pages: last });
    expect(linksOf(response)).to.deep.equal({
      next: '/v1/tickets?per_page=5&sort=id&page=3',
      prev: '/v1/tickets?per_page=5&sort=id&page=1',
      first: '/v1/tickets?per_page=5&sort=id&page=1',
      last: `/v1/tickets?per_page=5&sort=id&page=${last}`,
    });
    // Following the links is paging: prev of page 2 is page 1.
    const back = await get(linksOf(response).prev!);
    expect(back.body.data.pagination.page).to.equal(1);
  });

  it('works the same on the session host, whose links name /api', async () => {
    const user = await createUser('agent', { password: PASSWORD });
    const browser = await signIn(user.email, PASSWORD);
    const first = await browser.call('GET', `/tickets?project=${project.slug}&per_page=3&cursor=`);
    expect(first.status, first.text).to.equal(200);
    expect(first.body.data.tickets).to.have.length(3);
    const next = linksOf(first).next!;
    expect(next).to.match(
      new RegExp(`^/api/tickets\\?project=${project.slug}&per_page=3&cursor=[A-Za-z0-9_-]+$`),
    );
    const second = await browser.call('GET', next.slice('/api'.length));
    expect(second.status, second.text).to.equal(200);
    const ids = [...first.body.data.tickets, ...second.body.data.tickets].map((ticket: Ticket) => ticket.id);
    expect(new Set(ids).size).to.equal(6);
  });

  it('refuses a cursor that is no cursor, or used with other filters, another sort, page or q (400)', async () => {
    const first = await get('/v1/tickets?per_page=2&cursor=');
    const cursor = first.body.data.next_cursor as string;
    const invalid = async (query: string, detail: string | RegExp) => {
      const response = await get(`/v1/tickets?${query}`);
      expect(response.status, query).to.equal(400);
      expect(response.body.error?.message, query).to.equal('Invalid cursor');
      const [message] = response.body.error?.validation_errors?.cursor as string[];
      if (typeof detail === 'string') expect(message, query).to.equal(detail);
      else expect(message, query).to.match(detail);
    };
    await invalid('cursor=not-a-cursor', 'Invalid cursor');
    await invalid(`cursor=${cursor}x`, 'Invalid cursor');
    await invalid('cursor=a.b', 'Invalid cursor');
    await invalid(`cursor=${'A'.repeat(9000)}`, 'Invalid cursor');
    await invalid(`cursor=${cursor}&sort=id`, /another sort or other filters/);
    await invalid(`cursor=${cursor}&priority=high`, /another sort or other filters/);
    await invalid(`cursor=${cursor}&page=2`, /cannot be combined with page/);
    await invalid(`cursor=${cursor}&q=apple`, /cannot be combined with q/);
    // Another project's list is another query too.
    const elsewhere = await createProject();
    const otherKey = (await createKey({ project: elsewhere.slug })).key;
    const response = await request(`/v1/tickets?cursor=${cursor}`, { key: otherKey });
    expect(response.status).to.equal(400);
    expect((response.body.error?.validation_errors?.cursor as string[])[0]).to.match(
      /another sort or other filters/,
    );
  });
});
