/**
 * Handlers called as functions (routes/operation.ts): the input a mount would build, fake services,
 * and the answer as data, with no express and no HTTP in between.
 */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { Principal } from '@tix/protos';
import { spliceJson, type DataStream } from '../../src/http/envelope.js';
import type { Project } from '../../src/projects/project-resolver.js';
import { OPERATIONS } from '../../src/routes/index.js';
import type { Answer, HandlerInput } from '../../src/routes/operation.js';
import type { SessionStore } from '../../src/sessions/session-store.js';
import { recordingLogger } from '../support/fake-http.js';
import { TICKET_JSON, ticketMessage, ticketsJsonBatch } from '../support/fake-tickets.js';

const ACME: Project = {
  id: 1,
  slug: 'acme',
  name: 'Acme',
  prefix: 'ACME',
  description: '',
  statuses: [{ slug: 'open', label: 'Open', is_closed: false, position: 0 }] as Project['statuses'],
};
const AGENT: Principal = {
  kind: 'api_key',
  user_id: 10,
  role: 'agent',
  scopes: ['tickets:read', 'tickets:write'],
};

/** What each fake service method was asked, by name. */
const asked: Record<string, unknown[]> = {};

/** Fake clients: each method records its request and answers with `answers[name](request)`. */
function fakeServices(answers: Record<string, Record<string, (request: never) => unknown>>) {
  return Object.fromEntries(
    Object.entries(answers).map(([service, methods]) => [
      service,
      Object.fromEntries(
        Object.entries(methods).map(([method, answer]) => [
          method,
          (request: never) => {
            (asked[method] ??= []).push(request);
            return answer(request);
          },
        ]),
      ),
    ]),
  );
}

function input(parts: Record<string, unknown>): HandlerInput {
  return {
    params: {},
    query: {},
    body: undefined,
    project: ACME,
    principal: AGENT,
    call: { correlationId: 'c-1', principal: AGENT },
    session: undefined,
    log: recordingLogger(),
    method: 'GET',
    baseUrl: '/v1',
    given: new URLSearchParams(),
    ifMatch: undefined,
    rateLimitBudget: () => Promise.resolve(null),
    ...parts,
  } as unknown as HandlerInput;
}

function handler(operationId: string): (input: HandlerInput) => Promise<Answer> {
  const operation = OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`no operation ${operationId}`);
  return async (given) => operation.handle(given);
}

describe('handlers as functions', () => {
  beforeEach(() => {
    for (const key of Object.keys(asked)) delete asked[key];
  });

  it('getTicket: the ticket of the project, tagged with its version', async () => {
    const services = fakeServices({
      tickets: { GetTicket: () => Promise.resolve(ticketMessage({ version: 3 })) },
    });
    const answer = await handler('getTicket')(input({ params: { id: 42 }, services }));
    expect(asked.GetTicket).to.deep.equal([{ project_id: 1, id: 42 }]);
    expect(Object.keys(answer)).to.have.members(['data', 'etag']);
    expect(answer).to.include({ etag: '"t42.3"' });
    // The ticket service's JSON, put in as it is.
    const data = (answer as { data: unknown }).data;
    expect(JSON.parse(spliceJson(data).toString())).to.deep.equal({ ticket: { ...TICKET_JSON, version: 3 } });
  });

  it('updateTicket: If-Match becomes the expected version; the answer carries the new tag', async () => {
    const services = fakeServices({
      tickets: { UpdateTicket: () => Promise.resolve(ticketMessage({ version: 4 })) },
    });
    const answer = await handler('updateTicket')(
      input({ params: { id: 42 }, body: { title: 'New' }, ifMatch: '"t42.3"', services }),
    );
    expect(asked.UpdateTicket).to.have.length(1);
    expect(asked.UpdateTicket![0]).to.include({ project_id: 1, id: 42, expected_version: 3 });
    expect(answer).to.include({ etag: '"t42.4"' });
  });

  it('listTickets: a page, spliced, with Link to the next, previous, first and last pages', async () => {
    const services = fakeServices({
      tickets: {
        ListTickets: () =>
          Promise.resolve({
            tickets_json: ticketsJsonBatch([ticketMessage()]).tickets_json,
            pagination: { total: 60, page: 2, per_page: 20, total_pages: 3 },
          }),
      },
    });
    const answer = await handler('listTickets')(
      input({
        query: { page: 2, per_page: 20, sort: 'created_at', order: 'desc' },
        given: new URLSearchParams('page=2&priority=high'),
        services,
      }),
    );
    expect(answer).to.have.property('links').that.deep.equals({
      next: '/tickets?priority=high&page=3',
      prev: '/tickets?priority=high&page=1',
      first: '/tickets?priority=high&page=1',
      last: '/tickets?priority=high&page=3',
    });
    const spliced = JSON.parse(spliceJson((answer as { spliced: unknown }).spliced).toString()) as {
      tickets: unknown[];
      pagination: unknown;
    };
    expect(spliced.tickets).to.deep.equal([TICKET_JSON]);
    expect(spliced.pagination).to.deep.equal({ total: 60, page: 2, per_page: 20, total_pages: 3 });
  });

  it('listTickets with q: every match streamed from the service batches', async () => {
    async function* batches() {
      await Promise.resolve(); // as a stream: each batch arrives later
      yield ticketsJsonBatch([ticketMessage({ id: 1 })]);
      yield ticketsJsonBatch([ticketMessage({ id: 2 })]);
    }
    const services = fakeServices({ tickets: { SearchTicketsJson: () => batches() } });
    const answer = await handler('listTickets')(
      input({ query: { q: 'printer', page: 1, per_page: 20, sort: 'created_at', order: 'desc' }, services }),
    );
    const { stream } = answer as { stream: DataStream };
    expect(stream.key).to.equal('tickets');
    const written: string[] = [];
    for await (const batch of stream.items) {
      if ('elements' in stream.options) written.push(stream.options.elements(batch));
    }
    expect(JSON.parse(`[${written.join(',')}]`)).to.have.length(2);
    expect(asked.SearchTicketsJson).to.have.length(1);
  });

  it('getSignedInUser (app host): a deactivated user is signed out: 401 that also ends the session', async () => {
    const destroyed: string[] = [];
    const sessions = {
      store: { destroy: (id: string) => void destroyed.push(id) } as unknown as SessionStore,
    };
    const services = fakeServices({ lookup: { GetUsers: () => Promise.resolve({ users: [] }) } });
    const session = { id: 's-1', data: { csrfToken: 't', createdAt: '', user: { id: 10, role: 'agent' } } };
    const answer = await handler('getSignedInUser')(
      input({ project: undefined, session, sessions, services }),
    );
    expect(answer).to.have.property('session', 'end');
    const { error } = answer as { error: AppError };
    expect(error).to.be.instanceOf(AppError);
    expect(error.kind).to.equal('unauthenticated');
    expect(destroyed).to.deep.equal(['s-1']);
  });
});
