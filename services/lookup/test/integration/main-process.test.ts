import { exerciseMainProcess, expectConfigRefused, mainProcessStores } from '@tix/kit/testing';
import { LOOKUP_MIGRATIONS_DIR } from '../../src/server.js';

describe('lookup: the service process (src/main.ts)', function () {
  this.timeout(60_000);
  const stores = mainProcessStores('lookup_main', LOOKUP_MIGRATIONS_DIR);

  it('serves gRPC, relays the outbox to RabbitMQ, and stops cleanly on SIGTERM', async () => {
    await exerciseMainProcess(
      import.meta.url,
      'lookup',
      { LOOKUP_DATABASE_URL: stores.database.url, AMQP_URL: stores.vhost.url },
      // The relay marks the event published once RabbitMQ confirmed it.
      { databaseUrl: stores.database.url, relayed: ['api_key.revoked'] },
      async (client) => {
        const user = await client.CreateUser({ name: 'Ann', email: 'ann@example.com', role: 'admin' });
        const key = await client.CreateApiKey({ user_id: user.id, scopes: ['tickets:read'] });
        await client.RevokeApiKey({ id: key.id });
      },
    );
  });

  it('refuses to start with a bad configuration, naming the variable', async () => {
    await expectConfigRefused(
      import.meta.url,
      { LOOKUP_DATABASE_URL: stores.database.url, GRPC_PORT: 'eighty' },
      ['GRPC_PORT'],
    );
  });
});
