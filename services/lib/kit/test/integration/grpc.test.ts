import { expect } from 'chai';
import type { attachment, lookup, Principal } from '@tix/protos';
import { serviceDefinition } from '@tix/protos';
import {
  AppError,
  createServiceClient,
  startGrpcServer,
  type CallContext,
  type InFlightWork,
  workInFlight,
  type GrpcServiceRegistration,
  type RunningGrpcServer,
  type ServiceClient,
} from '../../src/index.js';
import { freePort, testLogger } from '../../src/testing/index.js';

/** A registration implementing only some methods; the rest answer not_implemented. */
function partialService(
  name: GrpcServiceRegistration['name'],
  implemented: Record<string, unknown>,
): GrpcServiceRegistration {
  const handlers = new Proxy(implemented, {
    get: (target, method: string) =>
      target[method] ??
      (() => Promise.reject(new AppError('not_implemented', `${method} is not implemented here`))),
  });
  return { name, definition: serviceDefinition(name), handlers };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const principal: Principal = {
  kind: 'api_key',
  user_id: 4,
  role: 'agent',
  scopes: ['tickets:read'],
  key_id: 9,
};

describe('gRPC server and client (kit)', () => {
  let server: RunningGrpcServer;
  let lookupClient: ServiceClient<'lookup'>;
  let attachmentClient: ServiceClient<'attachments'>;
  const seen: { context?: CallContext; inFlight?: InFlightWork[] } = {};

  before(async () => {
    const lookupService = partialService('lookup', {
      // Not async: it throws before it returns a promise.
      ListProjects(): Promise<lookup.ProjectList> {
        throw AppError.validation({ page: ['Page is invalid'] });
      },
      async ResolveProject(
        request: lookup.ResolveProjectRequest__Output,
        context: CallContext,
      ): Promise<lookup.Project> {
        seen.context = context;
        seen.inFlight = workInFlight();
        if (request.slug === 'invalid') throw AppError.validation({ slug: ['Slug is invalid ✗'] });
        if (request.slug === 'boom') throw new TypeError('database password is hunter2');
        if (request.slug === 'slow') await sleep(500);
        if (request.slug === 'late-failure') {
          await sleep(50);
          throw AppError.notFound('Project not found');
        }
        return {
          id: 1,
          name: 'Acme',
          slug: request.slug ?? '',
          prefix: 'AC',
          statuses: [{ slug: 'open', label: 'Open', position: 0 }],
        };
      },
    });
    const attachmentService = partialService('attachments', {
      async UploadAttachment(
        requests: AsyncIterable<attachment.UploadAttachmentRequest__Output>,
      ): Promise<attachment.Attachment> {
        let header: attachment.UploadHeader__Output | null = null;
        let size = 0;
        for await (const part of requests) {
          if (part.header) header = part.header;
          if (part.chunk) size += part.chunk.length;
        }
        if (!header) throw AppError.badRequest('header missing');
        return {
          id: 1,
          ticket_id: header.ticket_id,
          original_filename: header.original_filename,
          size_bytes: size,
        };
      },
      async *DownloadAttachment(
        request: attachment.GetAttachmentRequest__Output,
      ): AsyncIterable<attachment.DownloadAttachmentResponse> {
        if (request.id === 404) throw AppError.notFound('Attachment not found');
        yield { attachment: { id: request.id, size_bytes: 3 * 1024 } };
        if (request.id === 500) throw new TypeError('disk on fire');
        for (let i = 0; i < 3; i += 1) {
          await sleep(1);
          yield { chunk: Buffer.alloc(1024, i) };
        }
      },
    });

    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [lookupService, attachmentService],
      logger: testLogger(),
    });
    lookupClient = createServiceClient('lookup', `127.0.0.1:${server.port}`, { deadlineMs: 2_000 });
    attachmentClient = createServiceClient('attachments', `127.0.0.1:${server.port}`, { deadlineMs: 2_000 });
  });

  after(async () => {
    lookupClient.close();
    attachmentClient.close();
    await server.shutdown(1_000);
  });

  it('answers a unary call and passes correlation id and principal to the handler', async () => {
    const project = await lookupClient.ResolveProject(
      { slug: 'acme' },
      { correlationId: 'corr-1', principal },
    );
    expect(project).to.deep.include({ id: 1, slug: 'acme', description: '' });
    expect(project.statuses[0]).to.deep.equal({ slug: 'open', label: 'Open', is_closed: false, position: 0 });
    expect(seen.context?.correlationId).to.equal('corr-1');
    expect(seen.context?.principal).to.deep.equal(principal);
    // While it ran, the call was in flight (a crash's fatal line would have named it); now it is not.
    expect(seen.inFlight).to.deep.include({ correlationId: 'corr-1', what: 'ResolveProject' });
    expect(workInFlight().map((work) => work.correlationId)).to.not.include('corr-1');
  });

  it('invents a correlation id when the caller sent none', async () => {
    await lookupClient.ResolveProject({ slug: 'acme' });
    expect(seen.context?.correlationId).to.match(/^[0-9a-f-]{36}$/);
    expect(seen.context?.principal).to.equal(null);
  });

  it('delivers an AppError to the caller with kind, message and validation errors', async () => {
    const error = await lookupClient.ResolveProject({ slug: 'invalid' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AppError);
    expect(error).to.include({ kind: 'validation_failed', message: 'Validation failed' });
    expect((error as AppError).validationErrors).to.deep.equal({ slug: ['Slug is invalid ✗'] });
  });

  it('delivers an AppError a handler throws before returning its promise', async () => {
    const error = await lookupClient.ListProjects({}).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).validationErrors).to.deep.equal({ page: ['Page is invalid'] });
  });

  it('answers INTERNAL with a generic message when a handler throws something unexpected', async () => {
    const error = (await lookupClient.ResolveProject({ slug: 'boom' }).catch((e: unknown) => e)) as AppError;
    expect(error.kind).to.equal('internal');
    expect(error.message).to.not.contain('hunter2');
  });

  it('never leaves a caller hanging when an async handler fails late', async () => {
    const error = (await lookupClient
      .ResolveProject({ slug: 'late-failure' })
      .catch((e: unknown) => e)) as AppError;
    expect(error.kind).to.equal('not_found');
  });

  it('gives up at the deadline with a timeout error', async () => {
    const error = (await lookupClient
      .ResolveProject({ slug: 'slow' }, { deadlineMs: 100 })
      .catch((e: unknown) => e)) as AppError;
    expect(error.kind).to.equal('timeout');
  });

  it('reports an unreachable service as unavailable', async () => {
    const port = await freePort();
    const dead = createServiceClient('lookup', `127.0.0.1:${port}`, { deadlineMs: 1_000 });
    const error = (await dead.ResolveProject({ slug: 'x' }).catch((e: unknown) => e)) as AppError;
    expect(['unavailable', 'timeout']).to.include(error.kind);
    expect(await dead.checkHealth(300)).to.equal(false);
    dead.close();
  });

  it('answers grpc.health.v1 as SERVING', async () => {
    expect(await lookupClient.checkHealth()).to.equal(true);
  });

  it('streams a client upload into a handler that consumes an async iterable', async () => {
    const result = await new Promise<attachment.Attachment__Output>((resolve, reject) => {
      const call = attachmentClient.raw.UploadAttachment(
        attachmentClient.callMetadata(),
        attachmentClient.callOptions(),
        (error, response) =>
          error || !response ? reject(error ?? new Error('no response')) : resolve(response),
      );
      call.write({
        header: { project_id: 1, ticket_id: 5, original_filename: 'ä.png', declared_mime_type: 'image/png' },
      });
      for (let i = 0; i < 5; i += 1) call.write({ chunk: Buffer.alloc(64 * 1024, i) });
      call.end();
    });
    expect(result).to.include({ ticket_id: 5, original_filename: 'ä.png', size_bytes: 5 * 64 * 1024 });
  });

  it('streams a server response from an async generator to a typed async iterable', async () => {
    const parts: attachment.DownloadAttachmentResponse__Output[] = [];
    for await (const part of attachmentClient.DownloadAttachment({ project_id: 1, id: 8 })) parts.push(part);
    expect(parts[0]?.attachment).to.include({ id: 8, size_bytes: 3072 });
    expect(parts.slice(1).map((part) => part.chunk?.length)).to.deep.equal([1024, 1024, 1024]);
  });

  it("delivers a streaming handler's failure as the AppError it raised, before or after messages", async () => {
    const collect = async (id: number) => {
      const parts: unknown[] = [];
      try {
        for await (const part of attachmentClient.DownloadAttachment({ project_id: 1, id })) parts.push(part);
      } catch (error) {
        return { parts, error: error as AppError };
      }
      return { parts, error: undefined };
    };
    const before = await collect(404);
    expect(before.parts).to.have.length(0);
    expect(before.error)
      .to.be.instanceOf(AppError)
      .and.include({ kind: 'not_found', message: 'Attachment not found' });
    const after = await collect(500);
    expect(after.parts).to.have.length(1);
    expect(after.error?.kind).to.equal('internal');
  });

  it('lets an in-flight call finish during a graceful shutdown, then stops serving', async () => {
    const slowService = partialService('lookup', {
      async ResolveProject(): Promise<lookup.Project> {
        await sleep(200);
        return { id: 2, slug: 'drained' };
      },
    });
    const draining = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [slowService],
      logger: testLogger(),
    });
    const client = createServiceClient('lookup', `127.0.0.1:${draining.port}`, { deadlineMs: 2_000 });
    const inFlight = client.ResolveProject({ slug: 'x' });
    await sleep(50);
    await draining.shutdown(2_000);
    expect(await inFlight).to.include({ slug: 'drained' });
    expect(await client.checkHealth(300)).to.equal(false);
    client.close();
  });
});
