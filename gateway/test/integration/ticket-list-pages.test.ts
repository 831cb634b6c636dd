/**
 * The ticket list's pages as the gateway answers them (fakes over gRPC): cursor mode (what travels
 * to the service, `next_cursor`, the refusals the gateway makes itself) and the `Link` header of
 * both modes, naming this request with only the position changed.
 */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { ticket } from '@tix/protos';
import { expectError } from '@tix/kit/testing';
import { TICKET_JSON, ticketMessage, ticketsJson } from '../support/fake-tickets.js';
import { useFakeTicketGateway } from '../support/fake-ticket-gateway.js';

describe('ticket list pages: cursor mode and Link (fakes over gRPC)', () => {
  const fakes = useFakeTicketGateway();
  const call = fakes.call.bind(fakes);

  /** The Link header as { rel: url }. */
  const links = (headers: Headers) =>
    Object.fromEntries(
      (headers.get('link') ?? '')
        .split(', ')
        .filter((part) => part !== '')
        .map((part) => {
          const match = /^<([^>]*)>; rel="([a-z]+)"$/.exec(part);
          expect(match, part).to.not.equal(null);
          return [match![2]!, match![1]!];
        }),
    );

  describe('cursor mode', () => {
    it('sends the cursor without a page number and answers next_cursor with next and first links', async () => {
      fakes.tickets.override('ListTickets', () => ({
        tickets_json: ticketsJson([ticketMessage()]),
        next_cursor: 'eyJuIjoyfQ',
      }));
      const response = await call(
        'GET',
        '/tickets?project_id=1&cursor=&per_page=2&sort=%2Btitle&status=open',
      );
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({
        ok: true,
        data: { tickets: [TICKET_JSON], next_cursor: 'eyJuIjoyfQ' },
      });
      expect(fakes.tickets.lastRequest.ListTickets).to.deep.include({
        page: { page: 0, per_page: 2 },
        cursor: '',
        sort: '+title',
        status: 'open',
      });
      expect(links(response.headers)).to.deep.equal({
        next: '/v1/tickets?project_id=1&per_page=2&sort=%2Btitle&status=open&cursor=eyJuIjoyfQ',
        first: '/v1/tickets?project_id=1&per_page=2&sort=%2Btitle&status=open&cursor=',
      });
    });

    it('answers next_cursor null and no next link on the last page; passes a cursor as given', async () => {
      fakes.tickets.override('ListTickets', () => ({ tickets_json: ticketsJson([]) }));
      const response = await call('GET', '/tickets?project_id=1&cursor=abc_-9');
      expect(response.body).to.deep.equal({ ok: true, data: { tickets: [], next_cursor: null } });
      expect(fakes.tickets.lastRequest.ListTickets.cursor).to.equal('abc_-9');
      expect(links(response.headers)).to.deep.equal({ first: '/v1/tickets?project_id=1&cursor=' });
    });

    it('refuses a cursor that is no cursor text, or with page or q, before calling the service', async () => {
      for (const cursor of ['a%2Bb', 'a=', 'a.b', 'x'.repeat(8193)]) {
        expectError(await call('GET', `/tickets?project_id=1&cursor=${cursor}`), 400, 'Invalid cursor', {
          cursor: ['Invalid cursor'],
        });
      }
      expectError(await call('GET', '/tickets?project_id=1&cursor=&page=1'), 400, 'Invalid cursor', {
        cursor: ['cursor cannot be combined with page: the cursor holds the position'],
      });
      expectError(await call('GET', '/tickets?project_id=1&cursor=abc&q=printer'), 400, 'Invalid cursor', {
        cursor: ['cursor cannot be combined with q: a search answers every match at once'],
      });
      expectError(await call('GET', '/tickets?project_id=1&cursor=a&cursor=b'), 400, 'Invalid cursor', {
        cursor: ['Invalid cursor'],
      });
      expect(fakes.tickets.calls.ListTickets).to.equal(undefined);
      expect(fakes.tickets.calls.SearchTicketsJson).to.equal(undefined);
    });

    it("passes the service's refusal of a cursor through", async () => {
      fakes.tickets.override('ListTickets', () => {
        throw AppError.badRequest('Invalid cursor', { cursor: ['Invalid cursor'] });
      });
      expectError(await call('GET', '/tickets?project_id=1&cursor=abc'), 400, 'Invalid cursor', {
        cursor: ['Invalid cursor'],
      });
    });
  });

  describe('offset mode', () => {
    const page = (number: number, totalPages: number) => () =>
      ({
        tickets_json: ticketsJson([ticketMessage()]),
        pagination: { total: totalPages * 10, page: number, per_page: 10, total_pages: totalPages },
      }) satisfies ticket.TicketPage;

    it('keeps its answer and links next, prev, first and last with the other parameters as given', async () => {
      fakes.tickets.override('ListTickets', page(2, 3));
      const response = await call('GET', '/tickets?project_id=1&per_page=10&page=2&sort=-priority&tag=vip');
      expect(response.body).to.deep.equal({
        ok: true,
        data: { tickets: [TICKET_JSON], pagination: { total: 30, page: 2, per_page: 10, total_pages: 3 } },
      });
      const base = '/v1/tickets?project_id=1&per_page=10&sort=-priority&tag=vip';
      expect(links(response.headers)).to.deep.equal({
        next: `${base}&page=3`,
        prev: `${base}&page=1`,
        first: `${base}&page=1`,
        last: `${base}&page=3`,
      });
    });

    it('has no prev on the first page, no next on the last, and no last when nothing matches', async () => {
      fakes.tickets.override('ListTickets', page(1, 1));
      expect(links((await call('GET', '/tickets?project_id=1')).headers)).to.deep.equal({
        first: '/v1/tickets?project_id=1&page=1',
        last: '/v1/tickets?project_id=1&page=1',
      });
      fakes.tickets.override('ListTickets', page(1, 0));
      expect(links((await call('GET', '/tickets?project_id=1')).headers)).to.deep.equal({
        first: '/v1/tickets?project_id=1&page=1',
      });
      // Beyond the last page, prev leads back to the last one.
      fakes.tickets.override('ListTickets', page(9, 3));
      expect(links((await call('GET', '/tickets?project_id=1&page=9')).headers)).to.deep.include({
        prev: '/v1/tickets?project_id=1&page=3',
      });
    });

    it('leaves Link out rather than send headers a client cannot read, when the parameters are long', async () => {
      fakes.tickets.override('ListTickets', page(2, 3));
      const long = 'x'.repeat(2_000);
      const response = await call('GET', `/tickets?project_id=1&page=2&project=${long}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('link')).to.equal(null);
      expect(
        links((await call('GET', `/tickets?project_id=1&page=2&project=${'x'.repeat(200)}`)).headers),
      ).to.have.keys('next', 'prev', 'first', 'last');
    });

    it('a search (q) has no pages and no Link', async () => {
      const response = await call('GET', '/tickets?project_id=1&q=printer');
      expect(response.status).to.equal(200);
      expect(response.headers.get('link')).to.equal(null);
    });
  });
});
