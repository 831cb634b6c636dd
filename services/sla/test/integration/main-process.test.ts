/**
 * The process as operators run it (src/main.ts): a bad configuration stops it with EX_CONFIG (78)
 * naming the variable; it serves calendars and policies while the broker is unreachable (its
 * consumer and relay retry in the background); SIGTERM exits 0 (the timer worker stops with it).
 */
import { expect } from 'chai';
import {
  createTestDatabase,
  expectCleanStop,
  startMainProcess,
  startServingMainProcess,
  type TestDatabase,
} from '@tix/kit/testing';
import { SLA_MIGRATIONS_DIR } from '../../src/testing.js';

describe('sla service process', function () {
  this.timeout(60_000);
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase('sla_main', SLA_MIGRATIONS_DIR);
  });
  after(() => database?.drop());

  it('refuses a bad database URL (exit 78, naming it)', async () => {
    const started = startMainProcess(import.meta.url, { LOG_LEVEL: 'error', SLA_DATABASE_URL: 'not a url' });
    expect(await started.exited).to.equal(78);
    expect(started.output()).to.include('SLA_DATABASE_URL');
  });

  it('serves with no broker reachable, and stops cleanly on SIGTERM', async () => {
    const { main, client } = await startServingMainProcess(import.meta.url, 'sla', {
      NODE_ENV: 'development',
      SLA_DATABASE_URL: database.url,
      LOOKUP_SERVICE_ADDR: '127.0.0.1:9',
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
    });
    try {
      const created = await client.CreateCalendar({
        project_id: 1,
        name: 'Always',
        calendar_json: JSON.stringify({ time_zone: 'UTC', always_open: true }),
      });
      expect((await client.ListCalendars({ project_id: 1 })).calendars.map((c) => c.id)).to.deep.equal([
        created.id,
      ]);
      await expectCleanStop(main, client);
    } finally {
      client.close();
      await main.kill();
    }
  });
});
