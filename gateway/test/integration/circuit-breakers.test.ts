/**
 * Circuit breakers seen from HTTP: a ticket service that is stopped (a real gRPC server shut down,
 * later started again on the same port) makes the gateway answer the 503 envelope fast, /readyz shows
 * the breaker, and the gateway recovers by itself once the service is back.
 */
import { expect } from 'chai';
import { serviceDefinition, type ticket } from '@tix/protos';
import { AppError, startGrpcServer, type RunningGrpcServer } from '@tix/kit';
import { eventually, freePort, testLogger, expectError } from '@tix/kit/testing';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { ticketMessage } from '../support/fake-tickets.js';
import {
  bearer,
  notDeployedExcept,
  request,
  startTestGateway,
  type TestGateway,
} from '../support/test-gateway.js';

const RESET_MS = 500;

/** A ticket service on a fixed port, so it can be stopped and started again at the same address. */
function startTicketService(port: number, behaviour: { crash: boolean }): Promise<RunningGrpcServer> {
  const handlers = new Proxy(
    {},
    {
      get: (_target, method: string) => (request: ticket.GetTicketRequest__Output) => {
        if (method !== 'GetTicket') {
          return Promise.reject(new AppError('not_implemented', `${method} is not faked`));
        }
        if (behaviour.crash) return Promise.reject(new TypeError('handler bug'));
        if (request.id === 404) return Promise.reject(AppError.notFound('Ticket not found'));
        return Promise.resolve(ticketMessage({ id: request.id, project_id: request.project_id }));
      },
    },
  );
  return startGrpcServer({
    host: '127.0.0.1',
    port,
    services: [{ name: 'tickets', definition: serviceDefinition('tickets'), handlers }],
    logger: testLogger('tickets'),
  });
}

describe('circuit breakers (gateway, real gRPC services)', () => {
  let lookup: FakeLookup;
  let port: number;
  let tickets: RunningGrpcServer | undefined;
  let gateway: TestGateway;
  const behaviour = { crash: false };

  const getTicket = async (id = 42) => {
    const started = performance.now();
    const response = await request(`${gateway.apiUrl}/v1/tickets/${id}?project_id=1`, {
      headers: bearer(FULL_KEY),
    });
    return { ...response, elapsedMs: performance.now() - started };
  };
  const readyz = () => request(`${gateway.apiUrl}/readyz`);

  before(async () => {
    lookup = await startFakeLookup();
    port = await freePort();
  });
  beforeEach(async () => {
    behaviour.crash = false;
    tickets = await startTicketService(port, behaviour);
    gateway = await startTestGateway({
      services: { lookup: lookup.address, tickets: `127.0.0.1:${port}` },
      breaker: { resetTimeoutMs: RESET_MS, volumeThreshold: 5, errorThresholdPercentage: 50 },
    });
  });
  afterEach(async () => {
    await gateway.close();
    await tickets?.shutdown(100);
    tickets = undefined;
  });
  after(() => lookup.stop());

  it('answers a stopped service with the 503 envelope within a second, and recovers by itself', async () => {
    expect((await getTicket()).status).to.equal(200);
    await tickets!.shutdown(100);
    tickets = undefined;

    const outage = [];
    for (let i = 0; i < 8; i += 1) outage.push(await getTicket());
    for (const response of outage) {
      expect(response.status).to.equal(503);
      expect(response.body.ok).to.equal(false);
      expect(response.body.error.code).to.equal(503);
      expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.be.empty;
      expect(response.elapsedMs).to.be.below(1_000);
    }
    // Once open, the breaker answers without trying the service (the kit tests time that part).
    expect(outage.at(-1)!.body).to.deep.equal({
      ok: false,
      error: { code: 503, message: 'The tickets service is unavailable' },
    });

    const down = await readyz();
    expect(down.status).to.equal(503);
    expect(down.body.data.services.tickets).to.equal('unreachable');
    expect(down.body.data.breakers).to.deep.equal(notDeployedExcept({ lookup: 'closed', tickets: 'open' }));

    tickets = await startTicketService(port, behaviour);
    const restarted = performance.now();
    const back = await eventually(
      async () => {
        const response = await getTicket();
        return response.status === 200 ? response : undefined;
      },
      RESET_MS * 2 + 3_000,
      50,
    );
    expect(back.body.data.ticket.id).to.equal(42);
    expect(performance.now() - restarted).to.be.below(RESET_MS * 2 + 3_000);

    const up = await readyz();
    expect(up.status).to.equal(200);
    expect(up.body.data.breakers.tickets).to.equal('closed');
    expect(up.body.data.services.tickets).to.equal('serving');
  });

  it('an open breaker alone does not make the gateway unready', async () => {
    behaviour.crash = true; // the service is up (health SERVING) but every call crashes
    for (let i = 0; i < 5; i += 1) expect((await getTicket()).status).to.equal(500);
    const refused = await getTicket();
    expect(refused.status).to.equal(503);
    expect(refused.body.error.message).to.equal('The tickets service is unavailable');

    const ready = await readyz();
    expect(ready.status).to.equal(200);
    expect(ready.body.data.services.tickets).to.equal('serving');
    expect(ready.body.data.breakers.tickets).to.equal('open');
  });

  it('keeps the breaker closed when every answer is a 404', async () => {
    for (let i = 0; i < 20; i += 1) {
      const response = await getTicket(404);
      expect(response.status).to.equal(404);
      expect(response.body.error.message).to.equal('Ticket not found');
    }
    expect((await readyz()).body.data.breakers.tickets).to.equal('closed');
    expect((await getTicket()).status).to.equal(200);
  });

  it('refuses an upload at once while the attachments breaker is open', async () => {
    // Nothing listens there: every call fails UNAVAILABLE, which counts.
    const attachmentsGateway = await startTestGateway({
      services: { lookup: lookup.address, attachments: `127.0.0.1:${await freePort()}` },
      breaker: { resetTimeoutMs: 60_000, volumeThreshold: 5, errorThresholdPercentage: 50 },
    });
    try {
      for (let i = 0; i < 5; i += 1) {
        const response = await request(`${attachmentsGateway.apiUrl}/v1/attachments/1?project_id=1`, {
          headers: bearer(FULL_KEY),
        });
        expect(response.status).to.equal(503);
      }
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(256 * 1024, 1)], { type: 'text/plain' }), 'notes.txt');
      const started = performance.now();
      const upload = await request(`${attachmentsGateway.apiUrl}/v1/tickets/7/attachments?project_id=1`, {
        method: 'POST',
        headers: bearer(FULL_KEY),
        body: form,
      });
      expect(performance.now() - started).to.be.below(1_000);
      expectError(upload, 503, 'The attachments service is unavailable');
      expect((await request(`${attachmentsGateway.apiUrl}/readyz`)).body.data.breakers.attachments).to.equal(
        'open',
      );
    } finally {
      await attachmentsGateway.close();
    }
  });
});
