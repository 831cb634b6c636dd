import { expect } from 'chai';
import type amqp from 'amqplib';
import pg from 'pg';
import {
  createTestVhost,
  eventually,
  listenToEvents,
  startTcpProxy,
  type TcpProxy,
  type TestVhost,
} from '@tix/kit/testing';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '../../src/testing.js';

/** Every change reaches RabbitMQ exactly once per event, even when the broker is away for a while. */
describe('tickets: events survive a broker outage', function () {
  this.timeout(60_000);
  let vhost: TestVhost;
  let proxy: TcpProxy;
  let lookupServer: TestLookupServer;
  let tickets: TestTicketServer;
  let client: ServiceClient<'tickets'>;
  let consumer: amqp.ChannelModel;
  const received: string[] = [];

  before(async () => {
    vhost = await createTestVhost('tickets_relay');
    const broker = new URL(vhost.url);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
    const viaProxy = new URL(vhost.url);
    viaProxy.port = String(proxy.port);
    lookupServer = await startTestLookupServer({ label: 'tickets_relay_lookup' });
    tickets = await startTestTicketServer({
      lookupAddress: lookupServer.address,
      amqpUrl: viaProxy.toString(),
    });
    client = createServiceClient('tickets', tickets.address, { deadlineMs: 10_000 });
    // A consumer of our own, straight to the broker (not through the proxy).
    consumer = await listenToEvents(vhost.url, 'ticket.*', (message) =>
      received.push(String(message.properties.messageId)),
    );
  });
  after(async () => {
    client.close();
    await consumer.close().catch(() => undefined);
    await tickets.stop();
    await lookupServer.stop();
    await proxy.close();
    await vhost.drop();
  });

  it('publishes what was written while the broker was unreachable once it is back, each event once', async () => {
    const lookup = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    const demo = await lookup.SeedDemo({});
    lookup.close();
    const support = demo.projects.find((p) => p.slug === 'support')!;
    const agent = demo.users.find((u) => u.email === 'agent@example.com')!;
    const context = {
      principal: { kind: 'api_key' as const, user_id: agent.id, role: 'agent' as const, scopes: [] },
    };
    const type = demo.ticket_types.find((t) => t.slug === 'question')!;
    const create = () =>
      client.CreateTicket(
        { project_id: support.id, ticket_type_id: type.id, title: 'Relay me', custom_fields_json: '' },
        context,
      );

    const first = await create();
    await eventually(() => received.length === 1, 20_000);
    // Delivered is not yet published: the relay marks the row once the broker's confirm is back. Cut
    // only then, or the confirm is lost and the first event is (rightly) published again.
    await eventually(async () => (await tickets.relay!.backlog()) === 0, 20_000);

    await proxy.cut();
    const during = await create();
    await client.MoveTicket({ project_id: support.id, id: during.id, status: 'closed' }, context);
    await client.DeleteTicket({ project_id: support.id, id: first.id }, context);
    // Written (create 1 + move 2 + delete 1), not published while the broker is away.
    expect(await tickets.relay!.backlog()).to.equal(4);
    await proxy.restore();
    await eventually(async () => (await tickets.relay!.backlog()) === 0, 30_000);
    await eventually(() => received.length >= 5, 20_000);

    const sql = new pg.Client({ connectionString: tickets.databaseUrl });
    await sql.connect();
    const { rows } = await sql
      .query<{ id: string }>('SELECT id FROM outbox_events ORDER BY seq')
      .finally(() => sql.end());
    const written = rows.map((row) => row.id);
    expect(written).to.have.length(5);
    expect([...received].sort()).to.deep.equal([...written].sort());
  });
});
