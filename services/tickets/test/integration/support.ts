/**
 * A real fleet slice per test file: a lookup service (fresh database, demo data) and a ticket
 * service (fresh database) on free ports, typed gRPC clients, and SQL access to both databases.
 */
import pg from 'pg';
import { createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import type { lookup, Principal, ticket, TicketJson } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import type { LookupCacheTtls } from '../../src/config.js';
import { startTestTicketServer, type TestTicketServer } from '../../src/testing.js';

export { refusal, refusalOf, outboxMark, outboxSince, type OutboxRow } from '@tix/kit/testing';

export interface DemoData {
  support: lookup.Project__Output;
  platform: lookup.Project__Output;
  types: Record<'question' | 'bug_report' | 'incident' | 'task', lookup.TicketType__Output>;
  users: Record<'admin' | 'lead' | 'agent' | 'viewer', lookup.User__Output>;
}

export interface TicketFixture {
  lookupServer: TestLookupServer;
  ticketServer: TestTicketServer;
  client: ServiceClient<'tickets'>;
  lookup: ServiceClient<'lookup'>;
  /** SQL on the ticket database (inspect outbox_events, arrange states no RPC makes). */
  sql: pg.Pool;
  /** SQL on the lookup database (e.g. deactivate a user). */
  lookupSql: pg.Pool;
  demo: DemoData;
  /** Call context acting as `user` through an API key (source_type api) or a session (web). */
  as(user: lookup.User__Output, kind?: Principal['kind']): OutgoingContext;
  /** Call context of the demo agent's API key. */
  agent: OutgoingContext;
  stop(): Promise<void>;
}

/** Starts the fixture; call stop() in `after`. */
export async function startTicketFixture(options: { cacheTtls?: Partial<LookupCacheTtls> } = {}) {
  const lookupServer = await startTestLookupServer({ label: 'tickets_lookup' });
  const ticketServer = await startTestTicketServer({
    lookupAddress: lookupServer.address,
    ...(options.cacheTtls ? { cacheTtls: options.cacheTtls } : {}),
  });
  const client = createServiceClient('tickets', ticketServer.address, { deadlineMs: 20_000 });
  const lookupClient = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
  const seeded = await lookupClient.SeedDemo({});
  const project = (slug: string) => seeded.projects.find((p) => p.slug === slug)!;
  const type = (slug: string) => seeded.ticket_types.find((t) => t.slug === slug)!;
  const user = (email: string) => seeded.users.find((u) => u.email === email)!;
  const demo: DemoData = {
    support: project('support'),
    platform: project('platform'),
    types: {
      question: type('question'),
      bug_report: type('bug_report'),
      incident: type('incident'),
      task: type('task'),
    },
    users: {
      admin: user('admin@example.com'),
      lead: user('lead@example.com'),
      agent: user('agent@example.com'),
      viewer: user('viewer@example.com'),
    },
  };
  const as = (who: lookup.User__Output, kind: Principal['kind'] = 'api_key'): OutgoingContext => ({
    principal: {
      kind,
      user_id: who.id,
      role: who.role as Principal['role'],
      scopes: ['tickets:read', 'tickets:write', 'tickets:delete'],
    },
  });
  const sql = new pg.Pool({ connectionString: ticketServer.databaseUrl, max: 3 });
  const lookupSql = new pg.Pool({ connectionString: lookupServer.databaseUrl, max: 1 });
  const fixture: TicketFixture = {
    lookupServer,
    ticketServer,
    client,
    lookup: lookupClient,
    sql,
    lookupSql,
    demo,
    as,
    agent: as(demo.users.agent),
    async stop() {
      client.close();
      lookupClient.close();
      await sql.end();
      await lookupSql.end();
      await ticketServer.stop();
      await lookupServer.stop();
    },
  };
  return fixture;
}

/** The ticket an RPC answered, as the API shows it (its JSON, parsed). */
export function ticketOf(answer: ticket.ApiTicket__Output | null | undefined): TicketJson {
  if (!answer) throw new Error('the answer holds no ticket');
  return JSON.parse(answer.json.toString('utf8')) as TicketJson;
}

/** The tickets of a page, lane or bulk result, as the API shows them (its JSON array, parsed). */
export function ticketsOf(answer: { tickets_json: Buffer } | undefined): TicketJson[] {
  if (!answer) throw new Error('no such page, lane or result');
  return JSON.parse(answer.tickets_json.toString('utf8')) as TicketJson[];
}

/** Every ticket a search streams. */
export async function searchAll(
  f: Pick<TicketFixture, 'client' | 'agent'>,
  request: Partial<ticket.SearchTicketsRequest> & { project_id: number; q: string },
): Promise<TicketJson[]> {
  const found: TicketJson[] = [];
  for await (const batch of f.client.SearchTicketsJson({ sort: '', ...request }, f.agent))
    found.push(...ticketsOf(batch));
  return found;
}

/** A minimal valid CreateTicket request in the support project (type `question`). */
export function questionTicket(
  demo: DemoData,
  overrides: Partial<ticket.CreateTicketRequest> = {},
): ticket.CreateTicketRequest {
  return {
    project_id: demo.support.id,
    ticket_type_id: demo.types.question.id,
    title: 'Cannot log in',
    custom_fields_json: '',
    ...overrides,
  };
}
