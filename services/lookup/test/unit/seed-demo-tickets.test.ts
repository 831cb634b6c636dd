import { expect } from 'chai';
import { AppError, GENERIC_MESSAGES } from '@tix/kit';
import { DEMO_PROJECTS } from '../../src/demo/demo-data.js';
import { DEMO_TICKETS } from '../../src/demo/demo-tickets.js';
import { seedDemoTickets, type DemoTicketPeers } from '../../src/demo/seed-demo-tickets.js';

const users = [
  { id: 1, name: 'Ada', email: 'admin@example.com', role: 'admin' as const, isActive: true },
  { id: 2, name: 'Lee', email: 'lead@example.com', role: 'team_lead' as const, isActive: true },
  { id: 3, name: 'Alex', email: 'agent@example.com', role: 'agent' as const, isActive: true },
];

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
    const statuses = ['open', 'work_in_progress', 'waiting', 'closed'].map((slug, position) => ({
      slug,
      label: slug,
      isClosed: slug === 'closed',
      position,
    }));
    const project = { id: 1, name: 'Support', slug: 'support', prefix: 'SUP', description: '', statuses };
    try {
      await seedDemoTickets(peers, { projects: [project], ticketTypes: [], users, correlationId: 'c' });
      expect.fail('expected a refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).kind).to.equal('unavailable');
      expect((error as AppError).message).to.match(/ticket and comment services.*--without-tickets/);
    }
  });
});
