import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient } from '@tix/kit';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  freePort,
  type TestDatabase,
  type TestVhost,
  startMainProcess,
} from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { TICKETS_MIGRATIONS_DIR } from '../../src/server.js';
import { ticketOf } from './support.js';

describe('tickets: the service process (src/main.ts)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let vhost: TestVhost;
  let lookup: TestLookupServer;

  before(async () => {
    database = await createTestDatabase('tickets_main', TICKETS_MIGRATIONS_DIR);
    vhost = await createTestVhost('tickets_main');
    lookup = await startTestLookupServer({ label: 'tickets_main_lookup' });
  });
  after(async () => {
    await lookup.stop();
    await database.drop();
    await vhost.drop();
  });

  it('serves gRPC with lookup behind it, relays the outbox to RabbitMQ, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const main = startMainProcess(import.meta.url, {
      TICKETS_DATABASE_URL: database.url,
      AMQP_URL: vhost.url,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(port),
      LOOKUP_SERVICE_ADDR: lookup.address,
    });
    const client = createServiceClient('tickets', `127.0.0.1:${port}`, { deadlineMs: 5_000 });
    const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
    const sql = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      await eventually(() => client.checkHealth(), 20_000);
      const demo = await lookupClient.SeedDemo({});
      const project = demo.projects.find((p) => p.slug === 'support')!;
      const type = demo.ticket_types.find((t) => t.slug === 'question')!;
      const user = demo.users[0]!;
      const created = await client.CreateTicket(
        { project_id: project.id, ticket_type_id: type.id, title: 'From main', custom_fields_json: '' },
        { principal: { kind: 'api_key', user_id: user.id, role: 'admin', scopes: [] } },
      );
      expect(ticketOf(created)).to.deep.include({ ticket_number: 'SUP-1', title: 'From main' });
      const published = await eventually(async () => {
        const { rows } = await sql.query<{ published_at: Date | null }>(
          'SELECT published_at FROM outbox_events',
        );
        return rows.length === 1 && rows[0]!.published_at !== null;
      }, 20_000);
      expect(published).to.be.true;

      expect(await main.stop(), main.output()).to.equal(0);
      expect(await client.checkHealth(500)).to.be.false;
    } finally {
      client.close();
      lookupClient.close();
      await sql.end();
      await main.kill();
    }
  });

  it('refuses to start with a bad configuration, naming the variables (exit 78)', async () => {
    const main = startMainProcess(import.meta.url, { GRPC_PORT: 'x', LOOKUP_SERVICE_ADDR: 'none' });
    expect(await main.exited).to.equal(78);
    expect(main.output()).to.contain('GRPC_PORT').and.to.contain('LOOKUP_SERVICE_ADDR');
  });
});
