/**
 * The kit records what every service does, with nothing for the service to write: gRPC calls on
 * both ends (by RPC and status code, with latency), the outbox backlog measured at scrape time,
 * published events and failed publishes. Read back through a real /metrics endpoint.
 */
import { expect } from 'chai';
import pg from 'pg';
import { serviceDefinition, type lookup } from '@tix/protos';
import {
  AppError,
  createServiceClient,
  newDomainEvent,
  outboxInsert,
  startGrpcServer,
  startMetricsServer,
  type GrpcServiceRegistration,
  type MetricsServer,
} from '../../src/index.js';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  metricValue,
  scrapeMetrics,
  testLogger,
  type TestDatabase,
  type TestVhost,
} from '../../src/testing/index.js';
import { OUTBOX_TABLE, startTestRelay } from './fixtures/outbox.js';

describe('metrics recorded by the kit', function () {
  this.timeout(30_000);
  let metrics: MetricsServer;
  const scrape = () => scrapeMetrics(`http://127.0.0.1:${metrics.port}/metrics`);

  before(async () => {
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0 });
  });
  after(() => metrics.close());

  it('counts gRPC calls on the server and the client by RPC and status code, with latency', async () => {
    // GetTicketType: no other kit test calls it, so late calls of other tests cannot blur the counts.
    const implemented: Record<string, unknown> = {
      GetTicketType(request: lookup.GetTicketTypeRequest__Output): Promise<lookup.TicketType> {
        if (request.id === 404) return Promise.reject(AppError.notFound('Ticket type not found'));
        if (request.id === 500) return Promise.reject(new Error('a bug'));
        return Promise.resolve({ id: request.id, project_id: request.project_id, name: 'Bug', slug: 'bug' });
      },
    };
    const handlers = new Proxy(implemented, {
      get: (target, method: string) =>
        target[method] ?? (() => Promise.reject(new AppError('not_implemented', 'no'))),
    });
    const registration: GrpcServiceRegistration = {
      name: 'lookup',
      definition: serviceDefinition('lookup'),
      handlers,
    };
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [registration],
      logger: testLogger(),
    });
    const client = createServiceClient('lookup', `127.0.0.1:${server.port}`, {
      deadlineMs: 5_000,
      breaker: false,
    });
    try {
      const before = await scrape();
      const handled = (text: string, code: string) =>
        metricValue(text, 'tix_grpc_server_handled_total', { method: 'GetTicketType', code });
      const called = (text: string, code: string) =>
        metricValue(text, 'tix_grpc_client_calls_total', {
          target_service: 'lookup',
          method: 'GetTicketType',
          code,
        });

      await client.GetTicketType({ project_id: 1, id: 1 });
      await client.GetTicketType({ project_id: 1, id: 2 });
      await client.GetTicketType({ project_id: 1, id: 404 }).catch(() => undefined);
      await client.GetTicketType({ project_id: 1, id: 500 }).catch(() => undefined);

      const after = await scrape();
      expect(handled(after, 'OK') - handled(before, 'OK')).to.equal(2);
      expect(handled(after, 'NOT_FOUND') - handled(before, 'NOT_FOUND')).to.equal(1);
      expect(handled(after, 'INTERNAL') - handled(before, 'INTERNAL')).to.equal(1);
      expect(called(after, 'OK') - called(before, 'OK')).to.equal(2);
      expect(called(after, 'NOT_FOUND') - called(before, 'NOT_FOUND')).to.equal(1);
      expect(called(after, 'INTERNAL') - called(before, 'INTERNAL')).to.equal(1);
      const observed = (text: string, name: string, labels: Record<string, string>) =>
        metricValue(text, `${name}_count`, labels);
      expect(
        observed(after, 'tix_grpc_server_handling_seconds', { method: 'GetTicketType' }) -
          observed(before, 'tix_grpc_server_handling_seconds', { method: 'GetTicketType' }),
      ).to.equal(4);
      expect(
        observed(after, 'tix_grpc_client_call_seconds', {
          target_service: 'lookup',
          method: 'GetTicketType',
        }) -
          observed(before, 'tix_grpc_client_call_seconds', {
            target_service: 'lookup',
            method: 'GetTicketType',
          }),
      ).to.equal(4);
    } finally {
      client.close();
      await server.shutdown(100);
    }
  });

  describe('the outbox relay', () => {
    let database: TestDatabase;
    let vhost: TestVhost;
    let pool: pg.Pool;
    before(async () => {
      database = await createTestDatabase('outbox_metrics');
      vhost = await createTestVhost('outbox_metrics');
      pool = new pg.Pool({ connectionString: database.url, max: 2 });
      await pool.query(OUTBOX_TABLE);
    });
    after(async () => {
      await pool.end();
      await database.drop();
      await vhost.drop();
    });

    it('shows the backlog and failed publishes while the broker is away, then the events published', async () => {
      const events = [1, 2, 3].map((n) =>
        newDomainEvent('ticket.created', { id: n }, { source: 'test', projectId: 1 }),
      );
      await pool.query(outboxInsert(events));

      const failuresBefore = metricValue(await scrape(), 'tix_outbox_publish_failures_total');
      // Nothing listens on port 1.
      const stranded = startTestRelay(database.url, 'amqp://guest:guest@127.0.0.1:1', 100);
      try {
        await eventually(
          async () => metricValue(await scrape(), 'tix_outbox_publish_failures_total') > failuresBefore,
        );
        expect(metricValue(await scrape(), 'tix_outbox_backlog')).to.equal(3);
      } finally {
        await stranded.stop();
      }

      const publishedBefore = metricValue(await scrape(), 'tix_outbox_published_total');
      const relay = startTestRelay(database.url, vhost.url, 100);
      try {
        await eventually(async () => (await relay.backlog()) === 0, 10_000);
        const text = await scrape();
        expect(metricValue(text, 'tix_outbox_published_total') - publishedBefore).to.equal(3);
        expect(metricValue(text, 'tix_outbox_backlog')).to.equal(0);
      } finally {
        await relay.stop();
      }
    });
  });
});
