/**
 * Every stream of an upload or a download failing under the service, which answers and keeps
 * serving (the real store, PostgreSQL and the ticket service; a second service instance over a
 * wrapped store where a test must watch or break the store):
 * - the store dropping the connection mid-download -> 503, the next download works;
 * - the store stalling mid-download and the client cancelling -> the store's response is destroyed;
 * - the store answering only after the operation timeout -> the late response is destroyed;
 * - the spool file vanishing before the store put -> 500, nothing stored, recorded or left behind,
 *   also when the client cancels at that very moment (the read stream of a missing file used to
 *   raise an unhandled 'error' then);
 * - an upload that never sends its header -> given up after the idle timeout.
 */
import { readdir, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import type * as grpc from '@grpc/grpc-js';
import { fromGrpcError } from '@tix/kit';
import type { attachment } from '@tix/protos';
import { eventually } from '@tix/kit/testing';
import { createObjectStore, type ObjectStore } from '@tix/kit';
import {
  attachmentRows,
  binaryPng,
  download,
  PNG_BYTES,
  refusalOf,
  startAttachmentFixture,
  startServiceOverStore,
  startStallingProxy,
  upload,
  type AttachmentFixture,
  type ServiceOverStore,
  type StallingProxy,
} from './support.js';

const UNAVAILABLE = { kind: 'unavailable', message: 'File storage is unavailable' };
const INTERNAL = { kind: 'internal', message: 'Internal server error' };
const BIG_BYTES = 16 * 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

describe('stream failures around uploads and downloads', function () {
  this.timeout(120_000);
  let f: AttachmentFixture;
  let ticketId: number;
  let project: number;
  /** A 16 MiB attachment: far more than the socket buffers hold, so a download is surely mid-body. */
  let big: { id: number; bytes: Buffer };

  before(async () => {
    f = await startAttachmentFixture({ uploads: { idleTimeoutMs: 1_000 } });
    ticketId = await f.createTicket();
    project = f.demo.support.id;
    const bytes = binaryPng(BIG_BYTES);
    big = { id: (await upload(f, f.agent, bytes, { projectId: project, ticketId })).id, bytes };
  });
  after(async () => {
    await f.s3.restore().catch(() => undefined);
    await f?.stop();
  });

  /** Nothing left in the spool folder (removal follows the answer by a moment). */
  const spoolIsEmpty = () => eventually(async () => (await readdir(f.server.spoolDir)).length === 0, 5_000);

  it('ends a download with 503 when the store drops the connection mid-body, and keeps serving', async () => {
    let cut = false;
    const reading = (async () => {
      for await (const message of f.client.DownloadAttachment({ project_id: project, id: big.id }, f.agent)) {
        // The first bytes arrived: the store goes away with most of the body still to come.
        if (message.chunk && !cut) {
          cut = true;
          await f.s3.cut();
        }
      }
    })();
    try {
      expect(await refusalOf(reading)).to.deep.equal(UNAVAILABLE);
    } finally {
      await f.s3.restore();
    }
    const fetched = await download(f, f.agent, { projectId: project, id: big.id });
    expect(fetched.bytes.equals(big.bytes)).to.equal(true);
  });

  describe('through a store that can stall', () => {
    let proxy: StallingProxy;
    let service: ServiceOverStore;
    /** Every object body the service opened, in order. */
    let opened: Readable[];

    beforeEach(async () => {
      proxy = await startStallingProxy(f.s3.config.endpoint);
      opened = [];
      const real = createObjectStore(
        { ...f.s3.config, endpoint: proxy.endpoint },
        { operationTimeoutMs: 500 },
      );
      const watched: ObjectStore = {
        ...real,
        async open(key, signal) {
          const body = await real.open(key, signal);
          opened.push(body);
          return body;
        },
      };
      service = await startServiceOverStore(f, watched);
    });
    afterEach(async () => {
      await service.stop();
      await proxy.close();
    });

    it('destroys the store response when the client cancels a download while the store stalls', async () => {
      const call = service.client.raw.DownloadAttachment(
        { project_id: project, id: big.id },
        service.client.callMetadata(f.agent),
        {},
      );
      call.on('error', () => undefined); // CANCELLED, reported to the caller itself
      let received = 0;
      call.on('data', (message: { chunk?: Buffer }) => {
        received += message.chunk?.length ?? 0;
        if (received > 0) proxy.stall();
      });
      // The bytes already on their way arrive; then the service waits on the store, mid-body.
      let seen = -1;
      await eventually(async () => {
        const stable = received > 0 && received === seen;
        seen = received;
        await sleep(200);
        return stable;
      }, 10_000);
      expect(received).to.be.below(BIG_BYTES);
      expect(opened).to.have.length(1);
      expect(opened[0]!.destroyed).to.equal(false);

      call.cancel();
      // No open S3 stream is left: the body is destroyed and its connection closed.
      await eventually(() => opened[0]!.destroyed && proxy.openConnections() === 0, 3_000);
    });

    it('answers 503 when the store answers only after the timeout, and destroys the late response', async () => {
      proxy.stall();
      const started = Date.now();
      expect(await refusalOf(download(service, f.agent, { projectId: project, id: big.id }))).to.deep.equal(
        UNAVAILABLE,
      );
      expect(Date.now() - started).to.be.below(5_000);
      expect(proxy.openConnections()).to.equal(1);
      // The store answers now, to nobody: its response must not hold the connection forever.
      proxy.resume();
      await eventually(() => proxy.openConnections() === 0, 2_000);
    });
  });

  describe('when the spool file vanishes before the store put', () => {
    let service: ServiceOverStore | undefined;
    afterEach(async () => {
      await service?.stop();
      service = undefined;
    });

    it('answers 500 and stores, records and leaves nothing', async () => {
      const real = createObjectStore(f.s3.config);
      let vanished = false;
      service = await startServiceOverStore(f, {
        ...real,
        async putFile(key, file, contentType, signal) {
          // The first upload's file only: the next one shows the service still stores files.
          if (!vanished) {
            vanished = true;
            await rm(file.path);
          }
          return real.putFile(key, file, contentType, signal);
        },
      });
      const rowsBefore = await attachmentRows(f.sql);
      const keysBefore = await f.s3.objectKeys();
      expect(
        await refusalOf(upload(service, f.agent, PNG_BYTES, { projectId: project, ticketId })),
      ).to.deep.equal(INTERNAL);
      expect(await attachmentRows(f.sql)).to.deep.equal(rowsBefore);
      expect(await f.s3.objectKeys()).to.deep.equal(keysBefore);
      await spoolIsEmpty();
      expect(await upload(service, f.agent, PNG_BYTES, { projectId: project, ticketId })).to.include({
        size_bytes: PNG_BYTES.length,
      });
    });

    it('survives the client cancelling at that moment, and keeps serving', async () => {
      const real = createObjectStore(f.s3.config);
      let reachedPut!: () => void;
      const atPut = new Promise<void>((resolve) => (reachedPut = resolve));
      service = await startServiceOverStore(f, {
        ...real,
        async putFile(key, file, contentType, signal) {
          await rm(file.path);
          reachedPut();
          await aborted(signal!); // the client cancels now
          return real.putFile(key, file, contentType, signal);
        },
      });
      const rowsBefore = await attachmentRows(f.sql);
      const { client } = service;
      const answered = new Promise<grpc.ServiceError | null>((resolve) => {
        const call = client.raw.UploadAttachment(client.callMetadata(f.agent), {}, (error) => resolve(error));
        call.write({ header: { project_id: project, ticket_id: ticketId, original_filename: 'gone.png' } });
        call.write({ chunk: PNG_BYTES });
        call.end();
        void atPut.then(() => call.cancel());
      });
      expect(fromGrpcError((await answered)!).kind).to.equal('unavailable');
      // The service went on to store from the missing file after the cancellation: no crash, an answer next.
      await sleep(300);
      await spoolIsEmpty();
      expect(await attachmentRows(f.sql)).to.deep.equal(rowsBefore);
      expect(
        await client.ListAttachments({ project_id: project, ticket_id: ticketId }, f.agent),
      ).to.have.property('attachments');
    });
  });

  it('gives up on an upload that never sends its header (no deadline) after the idle timeout', async function () {
    this.timeout(15_000);
    const { client } = f;
    let call: grpc.ClientWritableStream<attachment.UploadAttachmentRequest> | undefined;
    const answered = new Promise<grpc.ServiceError | null>((resolve) => {
      call = client.raw.UploadAttachment(client.callMetadata(f.agent), {}, (error) => resolve(error));
    });
    try {
      const error = await answered;
      expect(error).to.not.equal(null);
      expect(fromGrpcError(error!)).to.include({
        kind: 'timeout',
        message: 'Upload stalled: no data for 1000 ms',
      });
    } finally {
      call?.cancel();
    }
  });
});
