/**
 * Streams whose caller goes away, through the kit's adapters and client helper: a server stream
 * stops asking its handler for messages the moment the caller has gone, and a handler that fails
 * because its caller left (its source destroyed on abort, its request stream closed) is a
 * cancellation in the metrics, not an internal failure; a consumer that stops reading early cancels
 * the call without an unhandled error event.
 */
import { expect } from 'chai';
import type * as grpc from '@grpc/grpc-js';
import { serviceDefinition, type attachment } from '@tix/protos';
import {
  AppError,
  createServiceClient,
  metricsRegistry,
  startGrpcServer,
  type CallContext,
  type GrpcServiceRegistration,
  type RunningGrpcServer,
  type ServiceClient,
} from '../../src/index.js';
import { eventually, metricValue, testLogger } from '../../src/testing/index.js';

type DownloadRequest = attachment.GetAttachmentRequest__Output;
type DownloadMessage = attachment.DownloadAttachmentResponse;
type UploadMessage = attachment.UploadAttachmentRequest__Output;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** How many calls of `method` the server finished with `code` so far. */
async function handled(method: string, code: string): Promise<number> {
  return metricValue(await metricsRegistry.metrics(), 'tix_grpc_server_handled_total', { method, code });
}

/** INTERNAL and CANCELLED calls of `method` since the counts given, once the call was counted. */
async function outcomes(
  method: string,
  counts: { internalBefore: number; cancelledBefore: number },
): Promise<{ internal: number; cancelled: number }> {
  const read = async () => ({
    internal: (await handled(method, 'INTERNAL')) - counts.internalBefore,
    cancelled: (await handled(method, 'CANCELLED')) - counts.cancelledBefore,
  });
  await eventually(async () => {
    const { internal, cancelled } = await read();
    return internal + cancelled > 0;
  }, 5_000);
  return read();
}

/** What the handlers of one test saw. */
interface Probe {
  /** Messages the download handler was asked for. */
  pulled: number;
  /** The download handler's finally block ran (it released its source). */
  released: boolean;
  /** The handler is about to throw because its caller left. */
  failing: boolean;
}

describe('gRPC streams whose caller goes away (kit)', () => {
  let server: RunningGrpcServer;
  let client: ServiceClient<'attachments'>;
  let probe: Probe;

  before(async () => {
    const handlers: Record<string, unknown> = {
      // id 1: an endless source; id 2: fails once its caller left (like a source destroyed on abort).
      async *DownloadAttachment(
        request: DownloadRequest,
        context: CallContext,
      ): AsyncIterable<DownloadMessage> {
        try {
          if (request.id === 2) {
            yield { attachment: { id: 2 } };
            await aborted(context.signal);
            probe.failing = true;
            throw new Error('read after the source was destroyed');
          }
          for (;;) {
            probe.pulled += 1;
            yield { chunk: Buffer.alloc(16 * 1024, probe.pulled % 256) };
          }
        } finally {
          probe.released = true;
        }
      },
      // Fails once its caller left, as a request stream read after a cancellation does.
      async UploadAttachment(requests: AsyncIterable<UploadMessage>, context: CallContext) {
        const messages = requests[Symbol.asyncIterator]();
        await messages.next();
        await aborted(context.signal);
        probe.failing = true;
        throw new Error('premature close');
      },
    };
    const registration: GrpcServiceRegistration = {
      name: 'attachments',
      definition: serviceDefinition('attachments'),
      handlers: new Proxy(handlers, {
        get: (target, method: string) =>
          target[method] ?? (() => Promise.reject(new AppError('not_implemented', `${method} is not here`))),
      }),
    };
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [registration],
      logger: testLogger(),
    });
    client = createServiceClient('attachments', `127.0.0.1:${server.port}`, {
      deadlineMs: 10_000,
      breaker: false,
    });
  });
  beforeEach(() => {
    probe = { pulled: 0, released: false, failing: false };
  });
  after(async () => {
    client.close();
    await server.shutdown(1_000);
  });

  it('asks a server-streaming handler for no further message once its caller has gone', async () => {
    const call = client.raw.DownloadAttachment({ project_id: 1, id: 1 }, client.callMetadata(), {});
    call.on('error', () => undefined); // CANCELLED, reported to the caller itself
    // The caller reads one message and then nothing: the server's writes back up and it waits.
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    call.pause();
    let seen = -1;
    await eventually(async () => {
      const stable = probe.pulled === seen;
      seen = probe.pulled;
      await sleep(100);
      return stable;
    }, 10_000);
    const pulledBeforeCancel = probe.pulled;

    call.cancel();
    await eventually(() => probe.released, 5_000);
    // Without a caller, another message would be a read (S3, a cursor FETCH) for nobody.
    expect(probe.pulled).to.equal(pulledBeforeCancel);
  });

  it('counts a server stream that fails because its caller left as cancelled, not internal', async () => {
    const internalBefore = await handled('DownloadAttachment', 'INTERNAL');
    const cancelledBefore = await handled('DownloadAttachment', 'CANCELLED');
    const call = client.raw.DownloadAttachment({ project_id: 1, id: 2 }, client.callMetadata(), {});
    call.on('error', () => undefined);
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    call.cancel();
    await eventually(() => probe.failing && probe.released, 5_000);
    expect(await outcomes('DownloadAttachment', { internalBefore, cancelledBefore })).to.deep.equal({
      internal: 0,
      cancelled: 1,
    });
  });

  it('counts a client stream that fails because its caller left as cancelled, not internal', async () => {
    const internalBefore = await handled('UploadAttachment', 'INTERNAL');
    const cancelledBefore = await handled('UploadAttachment', 'CANCELLED');
    const answered = new Promise<grpc.ServiceError | null>((resolve) => {
      const call = client.raw.UploadAttachment(client.callMetadata(), {}, (error) => resolve(error));
      call.write({ header: { project_id: 1, ticket_id: 1, original_filename: 'a.png' } });
      setTimeout(() => call.cancel(), 100);
    });
    expect((await answered)?.code).to.equal(1); // CANCELLED, on the caller's side
    await eventually(() => probe.failing, 5_000);
    expect(await outcomes('UploadAttachment', { internalBefore, cancelledBefore })).to.deep.equal({
      internal: 0,
      cancelled: 1,
    });
  });

  it('cancels the call when a consumer stops reading a server stream early, without an unhandled error', async () => {
    let received = 0;
    for await (const message of client.DownloadAttachment({ project_id: 1, id: 1 })) {
      expect(message.chunk).to.have.length(16 * 1024);
      received += 1;
      if (received === 3) break;
    }
    await eventually(() => probe.released, 5_000);
    // The cancellation comes back as a CANCELLED error event on the call: it must find a listener
    // (mocha fails the test on an uncaught one), also after a pause.
    await sleep(200);
    expect(received).to.equal(3);
  });
});
