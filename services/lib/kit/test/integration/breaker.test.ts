import { Writable } from 'node:stream';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import { pino } from 'pino';
import type { attachment, lookup } from '@tix/protos';
import { serviceDefinition } from '@tix/protos';
import {
  AppError,
  createServiceClient,
  fromGrpcError,
  startGrpcServer,
  tripsBreaker,
  type BreakerState,
  type GrpcServiceRegistration,
  type RunningGrpcServer,
  type ServiceClient,
} from '../../src/index.js';
import { eventually, startTcpProxy, testLogger, type TcpProxy } from '../../src/testing/index.js';

const RESET_MS = 300;
const BREAKER = { resetTimeoutMs: RESET_MS, volumeThreshold: 5, errorThresholdPercentage: 50 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the real servers below did, so tests can tell a refused call from one that reached a handler. */
const served = { resolveProject: 0, download: 0 };

function registration(name: GrpcServiceRegistration['name'], handlers: Record<string, unknown>) {
  const all = new Proxy(handlers, {
    get: (target, method: string) =>
      target[method] ?? (() => Promise.reject(new AppError('not_implemented', `${method} missing`))),
  });
  return { name, definition: serviceDefinition(name), handlers: all };
}

const lookupService = registration('lookup', {
  async ResolveProject(request: lookup.ResolveProjectRequest__Output): Promise<lookup.Project> {
    served.resolveProject += 1;
    switch (request.slug) {
      case 'missing':
        throw AppError.notFound('Project not found');
      case 'invalid':
        throw AppError.validation({ slug: ['Slug is invalid'] });
      case 'busy':
        // The service is up and says its own dependency is down.
        throw AppError.unavailable('The tickets service is unavailable');
      case 'crash':
        throw new TypeError('bug in the handler');
      case 'expensive':
        // What pg rejects with when the connection's statement_timeout cancelled the statement.
        throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      case 'slow':
        await sleep(300);
        break;
    }
    return { id: 1, slug: request.slug ?? '', name: 'Acme', prefix: 'AC' };
  },
});

const attachmentService = registration('attachments', {
  async *DownloadAttachment(
    request: attachment.GetAttachmentRequest__Output,
  ): AsyncIterable<attachment.DownloadAttachmentResponse> {
    served.download += 1;
    if (request.id === 404) throw AppError.notFound('Attachment not found');
    yield { attachment: { id: request.id, size_bytes: 2 } };
    await sleep(1);
    yield { chunk: Buffer.from('hi') };
  },
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the call should have failed').to.be.instanceOf(AppError);
  return error as AppError;
}

async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info', base: { service: 'caller' } }, sink), lines };
}

describe('circuit breakers of service clients (real gRPC server)', () => {
  let server: RunningGrpcServer;
  let proxy: TcpProxy;
  let proxyCut = false;
  const cut = async () => {
    await proxy.cut();
    proxyCut = true;
  };
  const restore = async () => {
    await proxy.restore();
    proxyCut = false;
  };
  const clients: { close(): void }[] = [];

  /** A client reaching the server through the proxy, with transitions recorded. */
  function lookupClient(options: { breaker?: typeof BREAKER | false; deadlineMs?: number } = {}) {
    const log = capturingLogger();
    const client = createServiceClient('lookup', `127.0.0.1:${proxy.port}`, {
      deadlineMs: options.deadlineMs ?? 2_000,
      breaker: options.breaker ?? BREAKER,
      logger: log.logger,
    });
    const transitions: BreakerState[] = [];
    client.onBreakerStateChange((state) => transitions.push(state));
    clients.push(client);
    return { client, transitions, lines: log.lines };
  }

  async function failTimes(client: ServiceClient<'lookup'>, times: number, slug = 'acme') {
    for (let i = 0; i < times; i += 1) await client.ResolveProject({ slug }).catch(() => undefined);
  }

  before(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [lookupService, attachmentService],
      logger: testLogger(),
    });
    proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    if (proxyCut) await restore();
  });

  after(async () => {
    await proxy.close();
    await server.shutdown(1_000);
  });

  it('opens after repeated failures of an unreachable service, then refuses calls at once', async () => {
    const { client, transitions, lines } = lookupClient();
    expect((await client.ResolveProject({ slug: 'acme' })).slug).to.equal('acme');
    expect(client.breakerState()).to.equal('closed');

    await cut();
    for (let i = 0; i < 5; i += 1) {
      const error = await failure(client.ResolveProject({ slug: 'acme' }));
      expect(['unavailable', 'timeout']).to.include(error.kind);
    }
    expect(client.breakerState()).to.equal('open');
    expect(transitions).to.deep.equal(['open']);

    await restore();
    const servedBefore = served.resolveProject;
    const started = performance.now();
    const refused = await failure(client.ResolveProject({ slug: 'acme' }));
    const elapsedMs = performance.now() - started;
    expect(elapsedMs).to.be.below(50);
    expect(refused.kind).to.equal('unavailable');
    expect(refused.message).to.equal('The lookup service is unavailable');
    expect(served.resolveProject, 'a refused call never reaches the service').to.equal(servedBefore);

    const opened = lines.find((line) => line.level === 40 && line.peer_service === 'lookup');
    expect(opened?.msg).to.equal('circuit breaker of the lookup service opened: calls fail fast');
  });

  it('half-opens after the reset timeout and one good call closes it', async () => {
    const { client, transitions, lines } = lookupClient();
    await cut();
    await failTimes(client, 5);
    expect(client.breakerState()).to.equal('open');
    await restore();

    await eventually(() => client.breakerState() === 'half_open', 2_000, 10);
    const servedBefore = served.resolveProject;
    // The trial call goes through; calls made while it is in flight are still refused.
    const trial = client.ResolveProject({ slug: 'slow' });
    const concurrent = await failure(client.ResolveProject({ slug: 'acme' }));
    expect(concurrent.message).to.equal('The lookup service is unavailable');
    expect((await trial).slug).to.equal('slow');
    expect(served.resolveProject).to.equal(servedBefore + 1);
    expect(client.breakerState()).to.equal('closed');
    expect(transitions).to.deep.equal(['open', 'half_open', 'closed']);
    expect((await client.ResolveProject({ slug: 'acme' })).slug).to.equal('acme');

    const closed = lines.find((line) => line.level === 30 && /closed/.test(String(line.msg)));
    expect(closed).to.include({ peer_service: 'lookup', service: 'caller' });
  });

  it('opens again when the trial call fails, and recovers once the service is back', async () => {
    const { client, transitions } = lookupClient();
    await cut();
    await failTimes(client, 5);
    await eventually(() => client.breakerState() === 'half_open', 2_000, 10);
    const trial = await failure(client.ResolveProject({ slug: 'acme' }));
    expect(trial.message).to.not.equal('The lookup service is unavailable'); // it really went out
    expect(client.breakerState()).to.equal('open');

    await restore();
    // Trial calls keep going out every reset timeout until one of them succeeds.
    const project = await eventually(() => client.ResolveProject({ slug: 'acme' }), 5_000, 50);
    expect(project.slug).to.equal('acme');
    expect(client.breakerState()).to.equal('closed');
    expect(transitions.slice(0, 4)).to.deep.equal(['open', 'half_open', 'open', 'half_open']);
    expect(transitions.at(-1)).to.equal('closed');
  });

  it('stays closed under domain errors (not found, validation) and deliberate unavailable answers', async () => {
    const { client } = lookupClient();
    for (let i = 0; i < 10; i += 1) {
      expect((await failure(client.ResolveProject({ slug: 'missing' }))).kind).to.equal('not_found');
      expect((await failure(client.ResolveProject({ slug: 'invalid' }))).kind).to.equal('validation_failed');
      const busy = await failure(client.ResolveProject({ slug: 'busy' }));
      expect(busy.message).to.equal('The tickets service is unavailable');
    }
    expect(client.breakerState()).to.equal('closed');
  });

  it('stays closed when the service answers timeout itself (a statement cancelled by its timeout)', async () => {
    const { client } = lookupClient();
    for (let i = 0; i < 10; i += 1) {
      const error = await failure(client.ResolveProject({ slug: 'expensive' }));
      expect([error.kind, error.message]).to.deep.equal(['timeout', 'Service did not answer in time']);
    }
    expect(client.breakerState()).to.equal('closed');
    expect((await client.ResolveProject({ slug: 'acme' })).slug).to.equal('acme');
  });

  it('opens on handler crashes (internal) and on deadlines', async () => {
    const crashing = lookupClient();
    await failTimes(crashing.client, 5, 'crash');
    expect(crashing.client.breakerState()).to.equal('open');

    const slow = lookupClient({ breaker: BREAKER, deadlineMs: 50 });
    for (let i = 0; i < 5; i += 1) {
      expect((await failure(slow.client.ResolveProject({ slug: 'slow' }))).kind).to.equal('timeout');
    }
    expect(slow.client.breakerState()).to.equal('open');
    await sleep(300); // let the abandoned slow handlers finish here, not during a later test
  });

  it('needs the volume threshold and the error percentage before it opens', async () => {
    const { client } = lookupClient();
    await failTimes(client, 2, 'crash');
    expect(client.breakerState()).to.equal('closed');
    // 2 failures out of 6 calls: 33 %, below 50 %.
    for (let i = 0; i < 4; i += 1) await client.ResolveProject({ slug: 'acme' });
    expect(client.breakerState()).to.equal('closed');
    await failTimes(client, 3, 'crash'); // 5 of 9: 56 %
    expect(client.breakerState()).to.equal('open');
  });

  it('never opens when turned off', async () => {
    const { client } = lookupClient({ breaker: false });
    await cut();
    await failTimes(client, 10);
    expect(client.breakerState()).to.equal('closed');
    await restore();
    expect((await eventually(() => client.ResolveProject({ slug: 'acme' }), 5_000, 50)).slug).to.equal(
      'acme',
    );
  });

  describe('server streams', () => {
    function attachmentsClient() {
      const client = createServiceClient('attachments', `127.0.0.1:${proxy.port}`, {
        deadlineMs: 2_000,
        breaker: BREAKER,
      });
      clients.push(client);
      return client;
    }

    it('count when they open: failures before the first message open the breaker', async () => {
      const client = attachmentsClient();
      const parts = await drain(client.DownloadAttachment({ project_id: 1, id: 7 }));
      expect(parts.map((part) => part.part)).to.deep.equal(['attachment', 'chunk']);

      await cut();
      for (let i = 0; i < 5; i += 1) {
        const error = await failure(drain(client.DownloadAttachment({ project_id: 1, id: 7 })));
        expect(['unavailable', 'timeout']).to.include(error.kind);
      }
      expect(client.breakerState()).to.equal('open');
      await restore();

      const servedBefore = served.download;
      const refused = await failure(drain(client.DownloadAttachment({ project_id: 1, id: 7 })));
      expect(refused.message).to.equal('The attachments service is unavailable');
      expect(served.download).to.equal(servedBefore);

      const recovered = await eventually(
        () => drain(client.DownloadAttachment({ project_id: 1, id: 7 })),
        5_000,
        50,
      );
      expect(recovered).to.have.length(2);
      expect(client.breakerState()).to.equal('closed');
    });

    it('stay closed when the service answers not found', async () => {
      const client = attachmentsClient();
      for (let i = 0; i < 10; i += 1) {
        const error = await failure(drain(client.DownloadAttachment({ project_id: 1, id: 404 })));
        expect(error.kind).to.equal('not_found');
      }
      expect(client.breakerState()).to.equal('closed');
    });
  });

  it('classifies errors: only infrastructure failures trip it', () => {
    expect(tripsBreaker(AppError.notFound('x'))).to.equal(false);
    expect(tripsBreaker(AppError.conflict('x'))).to.equal(false);
    expect(tripsBreaker(new AppError('rate_limited', 'x'))).to.equal(false);
    expect(tripsBreaker(AppError.internal('x'))).to.equal(true);
    expect(tripsBreaker(AppError.unavailable('x'))).to.equal(true); // no service metadata: transport
    expect(tripsBreaker(new AppError('timeout', 'x'))).to.equal(true);
    expect(tripsBreaker(new Error('x'))).to.equal(true);
    // A call the caller cancelled itself (a refused or abandoned upload) says nothing about the service.
    const cancelled = Object.assign(new Error('1 CANCELLED: Cancelled on client'), {
      code: GrpcStatus.CANCELLED,
      details: 'Cancelled on client',
      metadata: new Metadata(),
    });
    expect(tripsBreaker(fromGrpcError(cancelled))).to.equal(false);
  });
});
