import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { exerciseMainProcess, expectConfigRefused, mainProcessStores } from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { COMMENTS_MIGRATIONS_DIR } from '../../src/server.js';

describe('comments: the service process (src/main.ts)', function () {
  this.timeout(60_000);
  const stores = mainProcessStores('comments_main', COMMENTS_MIGRATIONS_DIR);
  let lookup: TestLookupServer;
  let tickets: TestTicketServer;

  before(async () => {
    lookup = await startTestLookupServer({ label: 'comments_main_lookup' });
    tickets = await startTestTicketServer({ lookupAddress: lookup.address, label: 'comments_main_tickets' });
  });
  after(async () => {
    await tickets?.stop();
    await lookup?.stop();
  });

  it('serves gRPC with the ticket service behind it, relays the outbox to RabbitMQ, and stops cleanly on SIGTERM', async () => {
    await exerciseMainProcess(
      import.meta.url,
      'comments',
      {
        COMMENTS_DATABASE_URL: stores.database.url,
        AMQP_URL: stores.vhost.url,
        TICKETS_SERVICE_ADDR: tickets.address,
      },
      { databaseUrl: stores.database.url, relayed: ['comment.created'] },
      async (client) => {
        const ticketClient = createServiceClient('tickets', tickets.address, { deadlineMs: 5_000 });
        const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
        try {
          const demo = await lookupClient.SeedDemo({});
          const project = demo.projects.find((p) => p.slug === 'support')!;
          const type = demo.ticket_types.find((t) => t.slug === 'question')!;
          const principal = {
            kind: 'api_key' as const,
            user_id: demo.users[0]!.id,
            role: 'admin' as const,
            scopes: [],
          };
          const ticket = await ticketClient.CreateTicket(
            { project_id: project.id, ticket_type_id: type.id, title: 'From main', custom_fields_json: '' },
            { principal },
          );
          const created = await client.CreateComment(
            { project_id: project.id, ticket_id: ticket.id, content: 'From main' },
            { principal },
          );
          expect(created).to.deep.include({ ticket_id: ticket.id, content: 'From main', is_internal: true });
        } finally {
          ticketClient.close();
          lookupClient.close();
        }
      },
    );
  });

  it('refuses to start with a bad configuration, naming the variables (exit 78)', async () => {
    await expectConfigRefused(import.meta.url, { GRPC_PORT: 'x', TICKETS_SERVICE_ADDR: 'none' }, [
      'GRPC_PORT',
      'TICKETS_SERVICE_ADDR',
    ]);
  });
});
