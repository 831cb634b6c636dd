/**
 * The process as operators run it (src/main.ts): a bad configuration stops it with EX_CONFIG (78)
 * naming the variable; SIGTERM lets an attempt in flight finish and be recorded, then exits 0.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient } from '@tix/kit';
import {
  createTestDatabase,
  eventually,
  freePort,
  startMainProcess,
  type TestDatabase,
  type TestProcess,
} from '@tix/kit/testing';
import { createFanOutStore } from '../../src/events/fan-out-store.js';
import { WEBHOOKS_MIGRATIONS_DIR } from '../../src/testing.js';
import { asUser, startReceiver } from './support.js';

function run(env: NodeJS.ProcessEnv): TestProcess {
  return startMainProcess(import.meta.url, { LOG_LEVEL: 'error', ...env });
}

describe('webhook service process', function () {
  this.timeout(60_000);
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase('webhooks_main', WEBHOOKS_MIGRATIONS_DIR);
  });
  after(() => database?.drop());

  it('refuses to start in production without WEBHOOK_SECRET_KEY (exit 78, naming it)', async () => {
    const started = run({
      NODE_ENV: 'production',
      WEBHOOKS_DATABASE_URL: database.url,
      WEBHOOK_SECRET_KEY: '',
    });
    expect(await started.exited).to.equal(78);
    expect(started.output()).to.include('WEBHOOK_SECRET_KEY');
  });

  it('SIGTERM: the attempt in flight finishes and is recorded, then exit 0', async () => {
    const receiver = await startReceiver();
    receiver.script([{ status: 200, delayMs: 700 }]);
    const port = await freePort();
    const started = run({
      NODE_ENV: 'development',
      WEBHOOKS_DATABASE_URL: database.url,
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', // no broker: the API and the workers still run
      GRPC_PORT: String(port),
      SHUTDOWN_GRACE_MS: '5000',
    });
    const sql = new pg.Pool({ connectionString: database.url, max: 1 });
    const client = createServiceClient('webhooks', `127.0.0.1:${port}`, { deadlineMs: 5_000 });
    try {
      await eventually(() => client.checkHealth(), 20_000, 100);
      const hook = await client.CreateWebhook(
        { project_id: 1, url: receiver.url, events: ['ticket.created'] },
        asUser(3),
      );
      await createFanOutStore(sql).fanOut({
        eventId: '5f0c2d0e-1d7b-4c9a-8f3e-2a1b0c9d8e7f',
        eventType: 'ticket.created',
        projectId: 1,
        body: '{"event":"ticket.created","timestamp":1,"data":{"id":1}}',
      });
      await eventually(() => receiver.requests.length === 1, 10_000);
      expect(await started.stop(), started.output()).to.equal(0);
      const { rows } = await sql.query('SELECT status, attempt_count FROM deliveries WHERE webhook_id = $1', [
        hook.id,
      ]);
      expect(rows).to.deep.equal([{ status: 'delivered', attempt_count: 1 }]);
    } finally {
      await started.kill();
      client.close();
      await sql.end();
      await receiver.close();
    }
  });
});
