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
import { LOOKUP_MIGRATIONS_DIR } from '../../src/server.js';

describe('lookup: the service process (src/main.ts)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let vhost: TestVhost;

  before(async () => {
    database = await createTestDatabase('lookup_main', LOOKUP_MIGRATIONS_DIR);
    vhost = await createTestVhost('lookup_main');
  });
  after(async () => {
    await database.drop();
    await vhost.drop();
  });

  it('serves gRPC, relays the outbox to RabbitMQ, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const main = startMainProcess(import.meta.url, {
      LOOKUP_DATABASE_URL: database.url,
      AMQP_URL: vhost.url,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(port),
    });
    const client = createServiceClient('lookup', `127.0.0.1:${port}`, { deadlineMs: 5_000 });
    const sql = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      await eventually(() => client.checkHealth(), 20_000);
      const user = await client.CreateUser({ name: 'Ann', email: 'ann@example.com', role: 'admin' });
      const key = await client.CreateApiKey({ user_id: user.id, scopes: ['tickets:read'] });
      await client.RevokeApiKey({ id: key.id });
      // The relay marks the event published once RabbitMQ confirmed it.
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
      await sql.end();
      await main.kill();
    }
  });

  it('refuses to start with a bad configuration, naming the variable', async () => {
    const main = startMainProcess(import.meta.url, {
      LOOKUP_DATABASE_URL: database.url,
      GRPC_PORT: 'eighty',
    });
    expect(await main.exited).to.equal(78);
    expect(main.output()).to.contain('GRPC_PORT');
  });
});
