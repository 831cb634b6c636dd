/**
 * The process as operators run it (src/main.ts): a bad configuration stops it with EX_CONFIG (78)
 * naming the variable; it serves without a broker (it never talks to one); SIGTERM exits 0.
 */
import { expect } from 'chai';
import {
  createTestDatabase,
  expectCleanStop,
  startMainProcess,
  startServingMainProcess,
  type TestDatabase,
} from '@tix/kit/testing';
import { CUSTOMERS_MIGRATIONS_DIR } from '../../src/testing.js';

describe('customer service process', function () {
  this.timeout(60_000);
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase('customers_main', CUSTOMERS_MIGRATIONS_DIR);
  });
  after(() => database?.drop());

  it('refuses a bad database URL (exit 78, naming it)', async () => {
    const started = startMainProcess(import.meta.url, {
      LOG_LEVEL: 'error',
      CUSTOMERS_DATABASE_URL: 'not a url',
    });
    expect(await started.exited).to.equal(78);
    expect(started.output()).to.include('CUSTOMERS_DATABASE_URL');
  });

  it('serves with no broker reachable, and stops cleanly on SIGTERM', async () => {
    const { main, client } = await startServingMainProcess(import.meta.url, 'customers', {
      NODE_ENV: 'development',
      CUSTOMERS_DATABASE_URL: database.url,
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
    });
    try {
      const { customers } = await client.FindOrCreateCustomers({
        addresses: [{ email: 'Main@Example.com', name: '' }],
      });
      expect(customers.map((c) => c.emails)).to.deep.equal([['main@example.com']]);
      await expectCleanStop(main, client);
    } finally {
      client.close();
      await main.kill();
    }
  });
});
