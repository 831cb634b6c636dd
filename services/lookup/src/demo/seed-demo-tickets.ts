/**
 * Seeding the demo tickets through the ticket and comment services, as the demo users (a `system`
 * principal carrying each user's id and role), so every ticket, comment and move goes through the
 * same rules, numbering, outbox events and lane placement as a real one. Comments come before the
 * move to the ticket's lane, as on a real desk: a resolved ticket is answered, then closed (which
 * is how the assistant tells the reply that resolved it). A project that already has tickets, or
 * whose workflow lacks a demo lane (not the seed's own), is left alone: the seed never adds a second
 * copy, and never touches a project in use.
 */
import { AppError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { ROLE_SCOPES, type Principal, type TicketJson } from '@tix/protos';
import type { ProjectRecord } from '../projects/project-store.js';
import type { TicketTypeRecord } from '../ticket-types/ticket-type-store.js';
import type { UserRecord } from '../users/user-store.js';
import type { DemoTicket } from './demo-data.js';
import { DEMO_TICKETS } from './demo-tickets.js';

export interface DemoTicketPeers {
  tickets: Pick<ServiceClient<'tickets'>, 'ListTickets' | 'CreateTicket' | 'MoveTicket'>;
  comments: Pick<ServiceClient<'comments'>, 'CreateComment'>;
}

export interface DemoTicketsOutcome {
  createdTickets: number;
  createdComments: number;
}

/** The demo data the tickets refer to, as the seed created or found it. */
export interface DemoTicketContext {
  projects: readonly ProjectRecord[];
  ticketTypes: readonly TicketTypeRecord[];
  users: readonly UserRecord[];
  correlationId: string;
}

/**
 * Creates the demo tickets (with their moves and comments) in each demo project that has none. A
 * peer that cannot be reached is named, so the CLI does not mistake it for lookup being down.
 */
export async function seedDemoTickets(
  peers: DemoTicketPeers,
  context: DemoTicketContext,
): Promise<DemoTicketsOutcome> {
  try {
    return await createDemoTickets(peers, context);
  } catch (error) {
    if (error instanceof AppError && (error.kind === 'unavailable' || error.kind === 'timeout')) {
      throw AppError.unavailable(
        'Demo tickets need the ticket and comment services, which did not answer; start the whole fleet, or seed with --without-tickets',
        error,
      );
    }
    throw error;
  }
}

async function createDemoTickets(
  peers: DemoTicketPeers,
  context: DemoTicketContext,
): Promise<DemoTicketsOutcome> {
  const outcome: DemoTicketsOutcome = { createdTickets: 0, createdComments: 0 };
  const user = (email: string) => context.users.find((candidate) => candidate.email === email)!;
  const as = (email: string): OutgoingContext => ({
    correlationId: context.correlationId,
    principal: actingAs(user(email)),
  });
  const admin = context.users.find((candidate) => candidate.role === 'admin')!;

  for (const project of context.projects) {
    const demos = DEMO_TICKETS.filter((demo) => demo.projectSlug === project.slug);
    // A project with a demo slug but another workflow was made by someone else: leave it alone.
    const lanes = new Set(project.statuses.map((status) => status.slug));
    if (demos.length === 0 || demos.some((demo) => !lanes.has(demo.status))) continue;
    if (await hasTickets(peers, project.id, as(admin.email))) continue;
    for (const demo of demos) {
      const created = await peers.tickets.CreateTicket(
        {
          project_id: project.id,
          ticket_type_id: typeId(context.ticketTypes, project.id, demo),
          title: demo.title,
          description: demo.description,
          priority: demo.priority,
          ...(demo.assignee ? { assigned_to: user(demo.assignee).id } : {}),
          custom_fields_json: JSON.stringify(demo.customFields),
          tags: demo.tags,
        },
        as(demo.reporter),
      );
      const ticket = JSON.parse(created.json.toString('utf8')) as TicketJson;
      outcome.createdTickets += 1;
      for (const comment of demo.comments) {
        await peers.comments.CreateComment(
          {
            project_id: project.id,
            ticket_id: ticket.id,
            content: comment.content,
            is_internal: comment.internal,
          },
          as(comment.by),
        );
        outcome.createdComments += 1;
      }
      if (ticket.status !== demo.status) {
        await peers.tickets.MoveTicket(
          {
            project_id: project.id,
            id: ticket.id,
            status: demo.status,
            ...(demo.resolution ? { resolution_type: demo.resolution } : {}),
          },
          as(demo.assignee ?? demo.reporter),
        );
      }
    }
  }
  return outcome;
}

/** A demo user acting through the seed: its own id and role, the scopes its role allows. */
function actingAs(user: UserRecord): Principal {
  return { kind: 'system', user_id: user.id, role: user.role, scopes: [...ROLE_SCOPES[user.role]] };
}

async function hasTickets(
  peers: DemoTicketPeers,
  projectId: number,
  context: OutgoingContext,
): Promise<boolean> {
  const page = await peers.tickets.ListTickets(
    { project_id: projectId, page: { page: 1, per_page: 1 }, sort: '+id' },
    context,
  );
  // An empty page's JSON is `[]`.
  return (page.pagination?.total ?? page.tickets_json.length - 2) > 0;
}

function typeId(types: readonly TicketTypeRecord[], projectId: number, demo: DemoTicket): number {
  const type = types.find(
    (candidate) => candidate.projectId === projectId && candidate.slug === demo.typeSlug,
  );
  if (!type) throw new Error(`demo ticket "${demo.title}" names unknown type ${demo.typeSlug}`);
  return type.id;
}
