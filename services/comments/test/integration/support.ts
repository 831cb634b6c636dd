/**
 * A real fleet slice per test file: lookup (fresh database, demo data), tickets and comments (fresh
 * databases) on free ports, typed gRPC clients, SQL on the comment database, and the demo users plus
 * a second agent, so every role and "someone else" can act.
 */
import pg from 'pg';
import { createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import type { comment, lookup, Principal } from '@tix/protos';
import { suiteFixture } from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { startTestCommentServer, type TestCommentServer } from '../../src/testing.js';

export { outboxMark, outboxSince, refusalOf, type OutboxRow } from '@tix/kit/testing';

export type Who = 'admin' | 'lead' | 'agent' | 'otherAgent' | 'viewer';

export interface CommentFixture {
  client: ServiceClient<'comments'>;
  tickets: ServiceClient<'tickets'>;
  lookup: ServiceClient<'lookup'>;
  commentServer: TestCommentServer;
  ticketServer: TestTicketServer;
  lookupServer: TestLookupServer;
  /** SQL on the comment database (seed rows, inspect outbox_events). */
  sql: pg.Pool;
  support: lookup.Project__Output;
  platform: lookup.Project__Output;
  users: Record<Who, lookup.User__Output>;
  /** Call context acting as one of the users through an API key. */
  as(who: Who): OutgoingContext;
  /** A new live ticket in `project` (default support). */
  newTicket(project?: lookup.Project__Output): Promise<number>;
  /** A new comment on `ticketId` in support, by `who` (default agent). */
  newComment(
    ticketId: number,
    overrides?: Partial<comment.CreateCommentRequest>,
    who?: Who,
  ): Promise<comment.Comment__Output>;
  stop(): Promise<void>;
}

/** Starts the fixture; call stop() in `after`. */
export async function startCommentFixture(label: string): Promise<CommentFixture> {
  const lookupServer = await startTestLookupServer({ label: `${label}_lookup` });
  const ticketServer = await startTestTicketServer({
    lookupAddress: lookupServer.address,
    label: `${label}_tickets`,
  });
  const commentServer = await startTestCommentServer({ ticketsAddress: ticketServer.address, label });
  const client = createServiceClient('comments', commentServer.address, { deadlineMs: 20_000 });
  const tickets = createServiceClient('tickets', ticketServer.address, { deadlineMs: 20_000 });
  const lookupClient = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
  const seeded = await lookupClient.SeedDemo({});
  const project = (slug: string) => seeded.projects.find((p) => p.slug === slug)!;
  const user = (email: string) => seeded.users.find((u) => u.email === email)!;
  const otherAgent = await lookupClient.CreateUser({
    name: 'Other Agent',
    email: 'other.agent@example.com',
    role: 'agent',
  });
  const users: Record<Who, lookup.User__Output> = {
    admin: user('admin@example.com'),
    lead: user('lead@example.com'),
    agent: user('agent@example.com'),
    otherAgent,
    viewer: user('viewer@example.com'),
  };
  // Types whose custom fields all have defaults or are optional, so a bare ticket is valid.
  const typeOf = (projectId: number) =>
    seeded.ticket_types.find(
      (type) => type.project_id === projectId && (type.slug === 'question' || type.slug === 'task'),
    )!.id;
  const as = (who: Who): OutgoingContext => {
    const principal: Principal = {
      kind: 'api_key',
      user_id: users[who].id,
      role: users[who].role as Principal['role'],
      scopes: ['tickets:read', 'tickets:write', 'tickets:delete', 'comments:read', 'comments:write'],
    };
    return { principal };
  };
  const support = project('support');
  const sql = new pg.Pool({ connectionString: commentServer.databaseUrl, max: 3 });
  return {
    client,
    tickets,
    lookup: lookupClient,
    commentServer,
    ticketServer,
    lookupServer,
    sql,
    support,
    platform: project('platform'),
    users,
    as,
    async newTicket(inProject = support) {
      const created = await tickets.CreateTicket(
        {
          project_id: inProject.id,
          ticket_type_id: typeOf(inProject.id),
          title: 'Needs a reply',
          custom_fields_json: '',
        },
        as('agent'),
      );
      return created.id;
    },
    newComment(ticketId, overrides = {}, who = 'agent') {
      return client.CreateComment(
        { project_id: support.id, ticket_id: ticketId, content: 'A note', ...overrides },
        as(who),
      );
    },
    async stop() {
      client.close();
      tickets.close();
      lookupClient.close();
      await sql.end();
      await commentServer.stop();
      await ticketServer.stop();
      await lookupServer.stop();
    },
  };
}

/**
 * A suite's fixture (suiteFixture: started in its first `before`, stopped after it) with `ticket`, a
 * live support ticket made at start for the suite's comments.
 */
export function commentSuite(label: string): CommentFixture & { ticket: number } {
  return suiteFixture(async () => {
    const fixture = await startCommentFixture(label);
    try {
      return Object.assign(fixture, { ticket: await fixture.newTicket() });
    } catch (error) {
      await fixture.stop();
      throw error;
    }
  });
}

/** Every comment a ListComments call streams, with the list's count and ticket id as the API shows them. */
export async function listAll(
  client: ServiceClient<'comments'>,
  request: comment.ListCommentsRequest & { ticket_id: number },
  context: OutgoingContext,
): Promise<{ comments: comment.Comment__Output[]; count: number; ticket_id: number }> {
  const comments: comment.Comment__Output[] = [];
  for await (const item of client.ListComments(request, context)) comments.push(item);
  return { comments, count: comments.length, ticket_id: request.ticket_id };
}
