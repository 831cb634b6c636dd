import { expect } from 'chai';
import { AppError, GENERIC_MESSAGES } from '@tix/kit';
import { RESOLVER_COUNT } from '@tix/support-corpus';
import { DEMO_PROJECTS, DEMO_TICKET_TYPES } from '../../src/demo/demo-data.js';
import { DEMO_HISTORY, DEMO_HISTORY_SIZE, DEMO_WRITERS } from '../../src/demo/demo-history.js';
import { DEMO_TICKETS } from '../../src/demo/demo-tickets.js';
import { seedDemoTickets, type DemoTicketPeers } from '../../src/demo/seed-demo-tickets.js';

const users = [
  { id: 1, name: 'Ada', email: 'admin@example.com', role: 'admin' as const, isActive: true, isSystem: false },
  {
    id: 2,
    name: 'Lee',
    email: 'lead@example.com',
    role: 'team_lead' as const,
    isActive: true,
    isSystem: false,
  },
  {
    id: 3,
    name: 'Alex',
    email: 'agent@example.com',
    role: 'agent' as const,
    isActive: true,
    isSystem: false,
  },
];

/** The support project with the default workflow (open, work_in_progress, waiting, closed). */
const SUPPORT = {
  id: 1,
  name: 'Support',
  slug: 'support',
  prefix: 'SUP',
  description: '',
  statuses: ['open', 'work_in_progress', 'waiting', 'closed'].map((slug, position) => ({
    slug,
    label: slug,
    isClosed: slug === 'closed',
    position,
  })),
};

describe('demo tickets', () => {
  it('fill every lane of each demo workflow and are written by users whose role may write them', () => {
    const defaultLanes = ['open', 'work_in_progress', 'waiting', 'closed'];
    for (const project of DEMO_PROJECTS) {
      const lanes = project.statuses.length ? project.statuses.map((status) => status.slug) : defaultLanes;
      const tickets = DEMO_TICKETS.filter((ticket) => ticket.projectSlug === project.slug);
      // Every lane has tickets (a living board), and no ticket names a lane the workflow lacks.
      expect([...new Set(tickets.map((ticket) => ticket.status))].sort(), project.slug).to.deep.equal(
        [...lanes].sort(),
      );
    }
    const emails = users.map((user) => user.email);
    for (const ticket of DEMO_TICKETS) {
      const authors = [ticket.reporter, ...ticket.comments.map((comment) => comment.by)];
      for (const email of authors) expect(emails, ticket.title).to.include(email);
    }
  });

  it("start with the support desk's resolved history from the assistant's corpus, each answered by another user", () => {
    expect(DEMO_WRITERS.length).to.be.at.least(RESOLVER_COUNT);
    expect(DEMO_TICKETS.slice(0, DEMO_HISTORY_SIZE)).to.deep.equal(DEMO_HISTORY);
    expect(new Set(DEMO_HISTORY.flatMap((ticket) => ticket.tags)).size).to.be.at.least(8);
    for (const ticket of DEMO_HISTORY) {
      expect(ticket).to.deep.include({ projectSlug: 'support', status: 'closed', resolution: 'resolved' });
      expect(DEMO_TICKET_TYPES.map((type) => type.slug)).to.include(ticket.typeSlug);
      // The last comment is the public reply that resolved it, by its assignee, never its reporter.
      const reply = ticket.comments.at(-1)!;
      expect(reply).to.deep.include({ by: ticket.assignee, internal: false });
      expect(ticket.reporter).not.to.equal(ticket.assignee);
    }
  });

  it('write every comment before moving the ticket to its lane (answered, then closed)', async () => {
    const calls: string[] = [];
    let lastId = 0;
    const peers = {
      tickets: {
        ListTickets: () => Promise.resolve({ tickets_json: Buffer.from('[]'), pagination: { total: 0 } }),
        CreateTicket: () => {
          lastId += 1;
          calls.push(`create ${lastId}`);
          const json = Buffer.from(JSON.stringify({ id: lastId, status: 'open' }));
          return Promise.resolve({ id: lastId, version: 1, json });
        },
        MoveTicket: (request: { id: number; status: string; resolution_type?: string }) => {
          calls.push(`move ${request.id} ${request.status} ${request.resolution_type ?? ''}`.trim());
          return Promise.resolve({});
        },
      },
      comments: {
        CreateComment: (request: { ticket_id: number }) => {
          calls.push(`comment ${request.ticket_id}`);
          return Promise.resolve({});
        },
      },
    } as unknown as DemoTicketPeers;
    const ticketTypes = DEMO_TICKET_TYPES.filter((type) => type.projectSlug === 'support').map(
      (type, index) => ({
        ...type,
        id: index + 1,
        projectId: 1,
        retiredAt: null,
      }),
    );
    const outcome = await seedDemoTickets(peers, {
      projects: [SUPPORT],
      ticketTypes,
      users,
      correlationId: 'c',
    });

    const support = DEMO_TICKETS.filter((ticket) => ticket.projectSlug === 'support');
    expect(outcome.createdTickets).to.equal(support.length);
    // Ticket n's calls: its creation, its comments, then its move (when it does not stay open).
    const expected = support.flatMap((ticket, index) => [
      `create ${index + 1}`,
      ...ticket.comments.map(() => `comment ${index + 1}`),
      ...(ticket.status === 'open'
        ? []
        : [`move ${index + 1} ${ticket.status} ${ticket.resolution ?? ''}`.trim()]),
    ]);
    expect(calls).to.deep.equal(expected);
    expect(calls.filter((call) => call.endsWith('closed resolved')).length).to.be.at.least(DEMO_HISTORY_SIZE);
  });

  it("leave alone a project with a demo slug whose workflow is not the demo's", async () => {
    const untouchable = () => Promise.reject(new Error('no call expected'));
    const peers = {
      tickets: { ListTickets: untouchable, CreateTicket: untouchable, MoveTicket: untouchable },
      comments: { CreateComment: untouchable },
    } as unknown as DemoTicketPeers;
    const lane = (slug: string, position: number) => ({
      slug,
      label: slug,
      isClosed: slug === 'closed',
      position,
    });
    const project = {
      id: 1,
      name: 'Support',
      slug: 'support',
      prefix: 'SUP',
      description: '',
      statuses: [lane('open', 0), lane('closed', 1)],
    };
    expect(
      await seedDemoTickets(peers, { projects: [project], ticketTypes: [], users, correlationId: 'c' }),
    ).to.deep.equal({ createdTickets: 0, createdComments: 0 });
  });

  it('name the unreachable ticket service instead of passing on a bare "unavailable"', async () => {
    const down = () => Promise.reject(new AppError('unavailable', GENERIC_MESSAGES.unavailable));
    const peers = {
      tickets: { ListTickets: down, CreateTicket: down, MoveTicket: down },
      comments: { CreateComment: down },
    } as unknown as DemoTicketPeers;
    try {
      await seedDemoTickets(peers, { projects: [SUPPORT], ticketTypes: [], users, correlationId: 'c' });
      expect.fail('expected a refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).kind).to.equal('unavailable');
      expect((error as AppError).message).to.match(/ticket and comment services.*--without-tickets/);
    }
  });
});
