/**
 * The service skeleton (service.ts) with a stand-in service: what register gets, when consumers
 * start, the order of the stop, and the clean-up when the server cannot start.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { serviceDefinition } from '@tix/protos';
import {
  AppError,
  createServiceClient,
  defineTixService,
  serviceConfig,
  type BackgroundWorker,
  type ServiceContext,
} from '../../src/index.js';
import { freePort, startTestService } from '../../src/testing/index.js';

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/migrations');

/** A lookup service whose every RPC answers not_implemented: the skeleton is what is under test. */
function standInService(events: string[], onRegister: (context: ServiceContext<unknown, 'tickets'>) => void) {
  const handlers = new Proxy(
    {},
    { get: () => () => Promise.reject(new AppError('not_implemented', 'stand-in')) },
  );
  const worker = (name: string): BackgroundWorker => ({
    stop: (graceMs) => {
      events.push(`${name} stopped (grace ${graceMs > 0 ? 'left' : 'none'})`);
      return Promise.resolve();
    },
  });
  return defineTixService({
    name: 'lookup',
    config: serviceConfig('lookup', { peers: { tickets: 'needs tickets' } }),
    migrations: MIGRATIONS,
    peers: ['tickets'],
    outbox: false,
    register: (context) => {
      onRegister(context);
      return {
        grpc: { name: 'lookup' as const, definition: serviceDefinition('lookup'), handlers },
        workers: { first: worker('first worker'), second: worker('second worker') },
        consumers: {
          events: () => {
            events.push('consumer started');
            return worker('consumer');
          },
        },
      };
    },
  });
}

describe('service skeleton (kit)', function () {
  this.timeout(20_000);

  it('gives register the pool and peers, serves health, and stops in order: calls, workers, pool', async () => {
    const events: string[] = [];
    const ticketsAddress = `127.0.0.1:${await freePort()}`;
    let context: ServiceContext<unknown, 'tickets'> | undefined;
    const service = await startTestService(
      standInService(events, (given) => (context = given)),
      { label: 'skeleton', config: { peers: { tickets: ticketsAddress }, serviceDeadlineMs: 1_234 } },
    );
    const client = createServiceClient('lookup', service.address, { deadlineMs: 2_000 });
    try {
      expect((await context!.pool.query<{ n: number }>('SELECT 1 AS n')).rows).to.deep.equal([{ n: 1 }]);
      expect(context!.peers.tickets.address).to.equal(ticketsAddress);
      expect(await client.checkHealth()).to.equal(true);
      expect(service.consumers).to.deep.equal({}); // no broker given: no consumers
      expect(service.relay).to.equal(null);

      const stopped = service.stop(2_000);
      expect(await client.checkHealth(500)).to.equal(false); // NOT_SERVING at once
      await stopped;
      expect(events).to.deep.equal([
        'first worker stopped (grace left)',
        'second worker stopped (grace left)',
      ]);
      expect(service.pool.ended).to.equal(true);
    } finally {
      client.close();
      await service.stop();
    }
  });

  it('starts the consumers once serving when it has a broker, and stops them with the server', async () => {
    const events: string[] = [];
    const service = await startTestService(
      standInService(events, () => events.push('registered')),
      { label: 'skeleton', amqpUrl: 'amqp://guest:guest@127.0.0.1:1' },
    );
    expect(events).to.deep.equal(['registered', 'consumer started']);
    await service.stop();
    expect(events.slice(2)).to.deep.equal([
      'consumer stopped (grace left)',
      'first worker stopped (grace left)',
      'second worker stopped (grace left)',
    ]);
  });

  it('when the server cannot start (port taken): stops the workers at once, closes the pool, rethrows', async () => {
    const first = await startTestService(
      standInService([], () => undefined),
      { label: 'skeleton' },
    );
    const events: string[] = [];
    let context: ServiceContext<unknown, 'tickets'> | undefined;
    try {
      const taken = startTestService(
        standInService(events, (given) => (context = given)),
        { label: 'skeleton', config: { grpcPort: first.port } },
      );
      await taken.then(
        () => expect.fail('started on a taken port'),
        (error: Error) => expect(error.message).to.match(/No address added|EADDRINUSE/),
      );
      expect(events).to.deep.equal([
        'first worker stopped (grace none)',
        'second worker stopped (grace none)',
      ]);
      expect(context!.pool.ended).to.equal(true);
    } finally {
      await first.stop();
    }
  });
});
