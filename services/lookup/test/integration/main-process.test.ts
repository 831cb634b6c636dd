import {
  createTestDatabase,
  createTestVhost,
  expectCleanStop,
  expectConfigRefused,
  expectOutboxRelayed,
  startServingMainProcess,
  type TestDatabase,
  type TestVhost,
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
    const { main, client } = await startServingMainProcess(import.meta.url, 'lookup', {
      LOOKUP_DATABASE_URL: database.url,
      AMQP_URL: vhost.url,
    });
    try {
      const user = await client.CreateUser({ name: 'Ann', email: 'ann@example.com', role: 'admin' });
      const key = await client.CreateApiKey({ user_id: user.id, scopes: ['tickets:read'] });
      await client.RevokeApiKey({ id: key.id });
      // The relay marks the event published once RabbitMQ confirmed it.
      await expectOutboxRelayed(database.url, ['api_key.revoked']);
      await expectCleanStop(main, client);
    } finally {
      client.close();
      await main.kill();
    }
  });

  it('refuses to start with a bad configuration, naming the variable', async () => {
    await expectConfigRefused(import.meta.url, { LOOKUP_DATABASE_URL: database.url, GRPC_PORT: 'eighty' }, [
      'GRPC_PORT',
    ]);
  });
});
