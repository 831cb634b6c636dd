import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { exerciseMainProcess, expectConfigRefused, mainProcessStores } from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { TICKETS_MIGRATIONS_DIR } from '../../src/server.js';
import { ticketOf } from './support.js';

describe('tickets: the service process (src/main.ts)', function () {
  this.timeout(60_000);
  const stores = mainProcessStores('tickets_main', TICKETS_MIGRATIONS_DIR);
  let lookup: TestLookupServer;

  before(async () => {
    lookup = await startTestLookupServer({ label: 'tickets_main_lookup' });
  });
  after(async () => {
    await lookup.stop();
  });

  it('serves gRPC with lookup behind it, relays the outbox to RabbitMQ, and stops cleanly on SIGTERM', async () => {
    await exerciseMainProcess(
      import.meta.url,
      'tickets',
      {
        TICKETS_DATABASE_URL: stores.database.url,
        AMQP_URL: stores.vhost.url,
        LOOKUP_SERVICE_ADDR: lookup.address,
      },
      { databaseUrl: stores.database.url, relayed: ['ticket.created'] },
      async (client) => {
        const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
        try {
          const demo = await lookupClient.SeedDemo({});
          const project = demo.projects.find((p) => p.slug === 'support')!;
          const type = demo.ticket_types.find((t) => t.slug === 'question')!;
          const user = demo.users[0]!;
          const created = await client.CreateTicket(
            { project_id: project.id, ticket_type_id: type.id, title: 'From main', custom_fields_json: '' },
            { principal: { kind: 'api_key', user_id: user.id, role: 'admin', scopes: [] } },
          );
          expect(ticketOf(created)).to.deep.include({ ticket_number: 'SUP-1', title: 'From main' });
        } finally {
          lookupClient.close();
        }
      },
    );
  });

  it('refuses to start with a bad configuration, naming the variables (exit 78)', async () => {
    await expectConfigRefused(import.meta.url, { GRPC_PORT: 'x', LOOKUP_SERVICE_ADDR: 'none' }, [
      'GRPC_PORT',
      'LOOKUP_SERVICE_ADDR',
    ]);
  });
});
