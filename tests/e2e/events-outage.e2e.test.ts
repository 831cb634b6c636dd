import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import { createProbeQueue, startBroker, stopBroker } from '../support/broker.js';
import { createKey, createProject, createTicket, createTicketType, unique } from '../support/fixtures.js';
import { request } from '../support/http.js';

interface TicketData {
  id: number;
  version: number;
}

/**
 * The transactional outbox end to end: RabbitMQ goes down, the API keeps accepting changes, and when
 * the broker is back every change's events arrive exactly once.
 */
describe('ticket events survive a RabbitMQ outage', function () {
  this.timeout(180_000);
  let probe: Awaited<ReturnType<typeof createProbeQueue>>;
  let brokerStopped = false;

  after(async () => {
    if (brokerStopped) await startBroker();
    await probe?.remove();
  });

  it('publishes every event of changes made while the broker was down, once each', async () => {
    const project = await createProject();
    const type = await createTicketType(project.slug);
    const { key } = await createKey({ project: project.slug });
    probe = await createProbeQueue(unique('e2e.outage.'), 'ticket.*');

    await stopBroker();
    brokerStopped = true;

    const tickets: TicketData[] = [];
    for (let i = 0; i < 10; i += 1) {
      tickets.push(await createTicket(key, { ticket_type_id: type.id, title: `Outage ${i}` }));
    }
    for (const ticket of tickets.slice(0, 5)) {
      const updated = await request(`/v1/tickets/${ticket.id}`, {
        method: 'PUT',
        key,
        body: { priority: 'high', version: ticket.version },
      });
      expect(updated.status, updated.text).to.equal(200);
    }

    await startBroker();
    brokerStopped = false;

    // 10 creations + 5 updates, each with exactly one event of its kind.
    const events: DomainEvent[] = [];
    await eventually(
      async () => {
        events.push(...(await probe.drain()));
        return events.length >= 15;
      },
      60_000,
      500,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    events.push(...(await probe.drain()));

    const ids = events.map((event) => event.id);
    expect(new Set(ids).size, 'event ids are unique').to.equal(ids.length);
    const created = events
      .filter((event) => event.type === 'ticket.created')
      .map((event) => (event.data as unknown as TicketData).id);
    expect(created.sort((a, b) => a - b)).to.deep.equal(tickets.map((t) => t.id).sort((a, b) => a - b));
    const updated = events.filter((event) => event.type === 'ticket.updated');
    expect(
      updated.map((event) => (event.data as unknown as TicketData).id).sort((a, b) => a - b),
    ).to.deep.equal(
      tickets
        .slice(0, 5)
        .map((t) => t.id)
        .sort((a, b) => a - b),
    );
    expect(events).to.have.length(15);
  });
});
