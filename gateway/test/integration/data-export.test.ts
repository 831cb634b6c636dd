/**
 * GET /api/me/data-export over real HTTP and real gRPC streams (fake services): the gateway reads
 * from the services only as fast as the client reads (a client that stops reading stops them, with
 * a bounded number of items in between) and cancels their calls when the client leaves; a refusal
 * before the first byte is the error envelope, a failure after it a broken download.
 */
import http from 'node:http';
import { expect } from 'chai';
import { AppError, startGrpcServer, type CallContext, type RunningGrpcServer } from '@tix/kit';
import { eventually, testLogger } from '@tix/kit/testing';
import { serviceDefinition, type ServiceName } from '@tix/protos';
import { startFakeLookup, USERS, type FakeLookup } from '../support/fake-lookup.js';
import { ticketMessage } from '../support/fake-tickets.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** The messages of a stream (a sync generator: the kit's adapter reads it like an async one). */
type ExportHandler = (context: CallContext) => Iterable<unknown>;

/** A gRPC server of `name` whose one export RPC runs the current handler (empty stream by default). */
async function startFakeExporter(name: ServiceName, method: string) {
  let handler: ExportHandler = function* () {};
  const handlers = new Proxy(
    {},
    {
      get: (_target, rpc: string) =>
        rpc === method
          ? (_request: unknown, context: CallContext) => handler(context)
          : () => Promise.reject(new AppError('not_implemented', `${rpc} is not faked`)),
    },
  );
  const server: RunningGrpcServer = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ name, definition: serviceDefinition(name), handlers }],
    logger: testLogger(`fake-${name}`),
  });
  return {
    address: `127.0.0.1:${server.port}`,
    use(next: ExportHandler) {
      handler = next;
    },
    reset() {
      handler = function* () {};
    },
    stop: () => server.shutdown(100),
  };
}

/** Many tickets, counting how many were produced and noting when the caller's call ended. */
function countingTickets(total: number) {
  const state = { produced: 0, finished: false };
  const handler: ExportHandler = function* () {
    try {
      for (let id = 1; id <= total; id += 1) {
        state.produced += 1;
        yield ticketMessage({ id, description: 'x'.repeat(1_000) });
      }
    } finally {
      state.finished = true;
    }
  };
  return { state, handler };
}

describe('the data export over real streams (GET /api/me/data-export)', function () {
  this.timeout(60_000);
  let lookup: FakeLookup;
  let tickets: Awaited<ReturnType<typeof startFakeExporter>>;
  let comments: Awaited<ReturnType<typeof startFakeExporter>>;
  let attachments: Awaited<ReturnType<typeof startFakeExporter>>;
  let gateway: TestGateway;
  let cookie: string;

  before(async () => {
    lookup = await startFakeLookup();
    tickets = await startFakeExporter('tickets', 'ExportUserTickets');
    comments = await startFakeExporter('comments', 'ExportUserComments');
    attachments = await startFakeExporter('attachments', 'ExportUserAttachments');
    gateway = await startTestGateway({
      services: {
        lookup: lookup.address,
        tickets: tickets.address,
        comments: comments.address,
        attachments: attachments.address,
      },
    });
    const start = await fetch(`${gateway.appUrl}/api/csrf-token`);
    const token = ((await start.json()) as { data: { token: string } }).data.token;
    const login = await fetch(`${gateway.appUrl}/api/auth/login`, {
      method: 'POST',
      headers: {
        cookie: start.headers.get('set-cookie')!.split(';')[0]!,
        'x-csrf-token': token,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery' }),
    });
    expect(login.status).to.equal(200);
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  });
  afterEach(() => {
    tickets.reset();
    comments.reset();
    attachments.reset();
  });
  after(async () => {
    await gateway.close();
    await Promise.all([tickets.stop(), comments.stop(), attachments.stop(), lookup.stop()]);
  });

  it('reads no further than the client while it does not read, and cancels the streams when it leaves', async () => {
    const total = 100_000; // about 100 MB of JSON
    const { state, handler } = countingTickets(total);
    tickets.use(handler);
    const request = http.get(`${gateway.appUrl}/api/me/data-export`, { headers: { cookie } });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    expect(response.statusCode).to.equal(200);
    response.pause(); // the client stops reading

    // The gateway and the service come to a stop: production stays flat for a while.
    let last = -1;
    await eventually(
      async () => {
        const now = state.produced;
        const stable = now === last;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return stable && now > 0;
      },
      20_000,
      0,
    );
    // What sits in buffers (HTTP/2 windows, sockets) is a small part of the export, not all of it.
    expect(state.produced).to.be.below(total / 4);
    expect(state.finished).to.equal(false);

    request.destroy();
    await eventually(() => state.finished, 10_000);
    expect(state.produced).to.be.below(total / 4);
  });

  it('answers a refusal before the first byte as the error envelope, not as a download', async () => {
    comments.use(function* () {
      yield* [];
      throw AppError.permissionDenied('You may only export your own data');
    });
    const response = await fetch(`${gateway.appUrl}/api/me/data-export`, { headers: { cookie } });
    expect(response.status).to.equal(403);
    expect(response.headers.get('content-disposition')).to.equal(null);
    expect(await response.json()).to.deep.equal({
      ok: false,
      error: { code: 403, message: 'You may only export your own data' },
    });
  });

  it('breaks the download when a stream fails after the first byte (never a complete-looking document)', async () => {
    tickets.use(function* () {
      for (let id = 1; id <= 500; id += 1) yield ticketMessage({ id, description: 'x'.repeat(1_000) });
      throw AppError.internal('the database went away');
    });
    const response = await fetch(`${gateway.appUrl}/api/me/data-export`, { headers: { cookie } });
    expect(response.status).to.equal(200);
    let failed = false;
    try {
      JSON.parse(await response.text());
    } catch {
      failed = true;
    }
    expect(failed, 'the body must not be a whole JSON document').to.equal(true);
  });

  it('writes the whole document when every stream ends', async () => {
    tickets.use(function* () {
      yield ticketMessage({ id: 1 });
      yield ticketMessage({ id: 2 });
    });
    const response = await fetch(`${gateway.appUrl}/api/me/data-export`, { headers: { cookie } });
    expect(response.status).to.equal(200);
    const document = (await response.json()) as { ok: boolean; data: Record<string, unknown> };
    expect(document.ok).to.equal(true);
    expect(Object.keys(document.data)).to.deep.equal([
      'exported_at',
      'user',
      'tickets',
      'comments',
      'attachments',
    ]);
    expect((document.data.tickets as { id: number }[]).map((t) => t.id)).to.deep.equal([1, 2]);
    expect(document.data.user).to.deep.equal(USERS[0]);
  });
});
