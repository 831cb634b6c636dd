/**
 * The webhook service process (src/main.ts) as operators run it: /metrics on its own port counting
 * delivery outcomes and gRPC calls; on SIGTERM it stops serving gRPC at once, lets the attempt in
 * flight finish and be recorded, and exits 0 within SHUTDOWN_GRACE_MS; an attempt that outlasts the
 * grace period is cut, not recorded, and the delivery stays pending for the next start.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import {
  createTestDatabase,
  eventually,
  freePort,
  metricValue,
  scrapeMetrics,
  startMainProcess,
  type TestDatabase,
  type TestProcess,
} from '@tix/kit/testing';
import { createFanOutStore } from '../../src/events/fan-out-store.js';
import { WEBHOOKS_MIGRATIONS_DIR } from '../../src/testing.js';
import { asUser, startReceiver, type Receiver } from './support.js';

interface Running {
  main: TestProcess;
  client: ServiceClient<'webhooks'>;
  metricsUrl: string;
}

async function startMain(databaseUrl: string, graceMs: number): Promise<Running> {
  const [grpcPort, metricsPort] = [await freePort(), await freePort()];
  const main = startMainProcess(import.meta.url, {
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    WEBHOOKS_DATABASE_URL: databaseUrl,
    AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', // no broker: the API and the workers still run
    GRPC_PORT: String(grpcPort),
    METRICS_PORT: String(metricsPort),
    SHUTDOWN_GRACE_MS: String(graceMs),
  });
  const client = createServiceClient('webhooks', `127.0.0.1:${grpcPort}`, {
    deadlineMs: 5_000,
    breaker: false,
  });
  await eventually(() => client.checkHealth(), 20_000, 100);
  return { main, client, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

describe('webhook service process: metrics and graceful shutdown', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let sql: pg.Pool;
  let receiver: Receiver;
  let running: Running | undefined;

  beforeEach(async () => {
    database = await createTestDatabase('webhooks_shutdown', WEBHOOKS_MIGRATIONS_DIR);
    sql = new pg.Pool({ connectionString: database.url, max: 1 });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await running?.main.kill();
    running?.client.close();
    running = undefined;
    await receiver.close();
    await sql.end();
    await database.drop();
  });

  /** Subscribes the receiver and queues one delivery of a ticket.created event for it. */
  async function queueDelivery(client: ServiceClient<'webhooks'>): Promise<number> {
    const hook = await client.CreateWebhook(
      { project_id: 1, url: receiver.url, events: ['ticket.created'] },
      asUser(3),
    );
    await createFanOutStore(sql).fanOut({
      eventId: '0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f',
      eventType: 'ticket.created',
      projectId: 1,
      body: '{"event":"ticket.created","timestamp":1,"data":{"id":1}}',
    });
    return hook.id;
  }

  const deliveryOf = async (hookId: number) =>
    (
      await sql.query<{ status: string; attempt_count: number }>(
        'SELECT status, attempt_count FROM deliveries WHERE webhook_id = $1',
        [hookId],
      )
    ).rows;

  it('counts delivery outcomes, attempt latency and gRPC calls on /metrics', async () => {
    running = await startMain(database.url, 5_000);
    receiver.script([500, 200]);
    const hookId = await queueDelivery(running.client);
    await eventually(async () => (await deliveryOf(hookId))[0]?.status === 'delivered', 15_000);

    const text = await scrapeMetrics(running.metricsUrl);
    const service = { service: 'webhooks' };
    expect(
      metricValue(text, 'tix_webhook_deliveries_total', { ...service, outcome: 'failed_attempt' }),
    ).to.equal(1);
    expect(metricValue(text, 'tix_webhook_deliveries_total', { ...service, outcome: 'success' })).to.equal(1);
    expect(metricValue(text, 'tix_webhook_deliveries_total', { outcome: 'failed' })).to.equal(0);
    expect(metricValue(text, 'tix_webhook_attempt_seconds_count', { result: 'failure' })).to.equal(1);
    expect(metricValue(text, 'tix_webhook_attempt_seconds_count', { result: 'success' })).to.equal(1);
    expect(
      metricValue(text, 'tix_grpc_server_handled_total', { method: 'CreateWebhook', code: 'OK' }),
    ).to.equal(1);
    expect(await running.main.stop()).to.equal(0);
  });

  it('on SIGTERM: stops serving gRPC, finishes the attempt in flight, records it, exits 0 in time', async () => {
    const graceMs = 5_000;
    running = await startMain(database.url, graceMs);
    receiver.script([{ status: 200, delayMs: 1_500 }]);
    const hookId = await queueDelivery(running.client);
    await eventually(() => receiver.requests.length === 1, 10_000);

    const signalledAt = Date.now();
    const stopped = running.main.stop();
    // No more calls are taken while the attempt is still waiting for its answer.
    await eventually(async () => !(await running!.client.checkHealth(300)), 2_000);
    expect(receiver.requests[0]!.status).to.equal(null);

    expect(await stopped).to.equal(0);
    expect(running.main.exitedAt()! - signalledAt).to.be.lessThan(graceMs);
    expect(receiver.requests[0]!.status).to.equal(200);
    expect(await deliveryOf(hookId)).to.deep.equal([{ status: 'delivered', attempt_count: 1 }]);
  });

  it('cuts an attempt that outlasts the grace period and keeps the delivery pending', async () => {
    const graceMs = 1_000;
    running = await startMain(database.url, graceMs);
    receiver.script(['hang']);
    const hookId = await queueDelivery(running.client);
    await eventually(() => receiver.requests.length === 1, 10_000);

    const signalledAt = Date.now();
    const stopped = running.main.stop();
    expect(await stopped).to.equal(0);
    expect(running.main.exitedAt()! - signalledAt).to.be.within(graceMs, graceMs + 3_000);
    expect(await deliveryOf(hookId)).to.deep.equal([{ status: 'pending', attempt_count: 0 }]);
  });
});
