import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import { createKey, createProject, createTicket, createTicketType } from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';

/**
 * Circuit breakers end to end: the ticket service process is killed, the gateway answers the 503
 * envelope fast (its breaker opens and /readyz shows it), and once the process is back the gateway
 * recovers by itself, without a restart.
 */
describe('a service outage behind the gateway (circuit breaker)', function () {
  this.timeout(120_000);
  let ticketsDown = false;

  after(async () => {
    if (ticketsDown) await fleet().restart('tickets');
  });

  it('answers 503 fast while the ticket service is down and recovers when it is back', async () => {
    const project = await createProject();
    const type = await createTicketType(project.slug);
    const { key } = await createKey({ project: project.slug });
    const created = await createTicket(key, { ticket_type_id: type.id, title: 'Before the outage' });
    const path = `/v1/tickets/${created.id as number}`;

    await fleet().kill('tickets', 'SIGKILL');
    ticketsDown = true;

    // The breaker opens once failures are over half the calls of its rolling window (10 s), which
    // still holds the successful calls of the suites before this one: call until it has opened.
    const BREAKER_MESSAGE = 'The tickets service is unavailable';
    const answers = [];
    for (let i = 0; i < 200 && answers.at(-1)?.response.body.error?.message !== BREAKER_MESSAGE; i += 1) {
      const started = performance.now();
      const response = await request(path, { key });
      answers.push({ response, elapsedMs: performance.now() - started });
    }
    for (const { response, elapsedMs } of answers) {
      expect(response.status, response.text).to.equal(503);
      expect(response.body.ok).to.equal(false);
      expect(response.body.error?.code).to.equal(503);
      expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.be.empty;
      expect(elapsedMs).to.be.below(1_000);
    }
    expect(answers.at(-1)!.response.body.error?.message).to.equal(BREAKER_MESSAGE);

    const down = await request('/readyz');
    expect(down.status).to.equal(503);
    expect(down.body.data.services.tickets).to.equal('unreachable');
    expect(down.body.data.breakers.tickets).to.equal('open');
    expect(down.body.data.breakers.lookup).to.equal('closed');

    await fleet().restart('tickets');
    ticketsDown = false;
    const back = await eventually(
      async () => {
        const response = await request(path, { key });
        return response.status === 200 ? response : undefined;
      },
      60_000,
      250,
    );
    expect(back.body.data.ticket.title).to.equal('Before the outage');
    const up = await request('/readyz');
    expect(up.status).to.equal(200);
    expect(up.body.data.breakers.tickets).to.equal('closed');
  });
});
