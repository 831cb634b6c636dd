/**
 * Uploads the service refuses, each with its exact answer, and with nothing left behind: no row, no
 * event, no object in the bucket, no spool file. The maximum is 256 KiB here so that "over the
 * limit" is cheap; the gateway relies on this service as the authority on size and type.
 */
import { readdir } from 'node:fs/promises';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import {
  attachmentRows,
  binaryPng,
  exeBytes,
  outboxEvents,
  PNG_BYTES,
  refusalOf,
  startAttachmentFixture,
  upload,
  type AttachmentFixture,
  type UploadOptions,
} from './support.js';

const MAX = 256 * 1024;

function fileError(message: string) {
  return { kind: 'validation_failed', message: 'Validation failed', validation_errors: { file: [message] } };
}

describe('upload refusals (nothing left behind)', function () {
  this.timeout(120_000);
  let f: AttachmentFixture;
  let ticketId: number;
  let project: number;

  /** The refusal of an upload of `bytes` by the agent to the suite's ticket, with `options` (filename, type, ...). */
  const refusedUpload = (bytes: Buffer, options: Partial<UploadOptions> = {}) =>
    refusalOf(upload(f, f.agent, bytes, { projectId: project, ticketId, ...options }));

  before(async () => {
    f = await startAttachmentFixture({ uploads: { maxBytes: MAX, idleTimeoutMs: 1_000 } });
    ticketId = await f.createTicket();
    project = f.demo.support.id;
  });
  after(async () => {
    await f?.stop();
  });

  /** Nothing was recorded, stored or left in the spool folder. */
  async function expectNothingLeft(): Promise<void> {
    expect(await attachmentRows(f.sql)).to.deep.equal([]);
    expect(await outboxEvents(f.sql)).to.deep.equal([]);
    expect(await f.s3.objectKeys()).to.deep.equal([]);
    await eventually(async () => (await readdir(f.server.spoolDir)).length === 0, 5_000);
  }

  it('refuses a file over the maximum with 422, and stores nothing', async () => {
    const refusal = await refusedUpload(binaryPng(MAX + 1), { filename: 'big.png' });
    expect(refusal).to.deep.equal(fileError('File is larger than 256 KB'));
    await expectNothingLeft();
  });

  it('accepts a file of exactly the maximum', async () => {
    const created = await upload(f, f.agent, binaryPng(MAX), {
      projectId: project,
      ticketId,
      filename: 'max.png',
    });
    expect(created.size_bytes).to.equal(MAX);
    await f.sql.query('TRUNCATE attachments, outbox_events');
    const stored = await f.s3.objectKeys();
    expect(stored).to.have.length(1);
    await f.server.objects.remove(stored[0]!);
  });

  it('refuses a Windows executable renamed .png and claimed image/png', async () => {
    const refusal = await refusedUpload(exeBytes(), { filename: 'holiday.png', declaredType: 'image/png' });
    expect(refusal).to.deep.equal(fileError('File type application/x-msdownload is not allowed'));
    await expectNothingLeft();
  });

  it('refuses a real PNG claimed as another type', async () => {
    const refusal = await refusedUpload(PNG_BYTES, { filename: 'a.jpg', declaredType: 'image/jpeg' });
    expect(refusal).to.deep.equal(fileError('File content is image/png, not the declared image/jpeg'));
    await expectNothingLeft();
  });

  it('refuses HTML, whatever it claims', async () => {
    const html = Buffer.from('<html><body><script>alert(1)</script></body></html>');
    for (const declaredType of ['text/html', 'image/png', '']) {
      const refusal = await refusedUpload(html, { filename: 'x.html', declaredType });
      expect(refusal, declaredType).to.deep.equal(fileError('File type is not supported'));
    }
    await expectNothingLeft();
  });

  it('refuses binary bytes claimed as text, and an empty file', async () => {
    const binary = Buffer.from([0x41, 0x00, 0x42, 0xff, 0xfe]);
    expect(await refusedUpload(binary, { filename: 'a.txt', declaredType: 'text/plain' })).to.deep.equal(
      fileError('File declared as text/plain is not UTF-8 text'),
    );
    expect(
      await refusedUpload(Buffer.alloc(0), { filename: 'empty.txt', declaredType: 'text/plain' }),
    ).to.deep.equal(fileError('File is empty'));
    await expectNothingLeft();
  });

  it('refuses uploads to a ticket that is not live in the caller project with the ticket 404', async () => {
    const platformTicket = await f.createTicket('platform');
    const deleted = await f.createTicket();
    await f.tickets.DeleteTicket({ project_id: project, id: deleted }, f.agent);
    for (const target of [
      { projectId: project, ticketId: platformTicket },
      { projectId: project, ticketId: deleted },
      { projectId: project, ticketId: 999_999 },
    ]) {
      expect(await refusalOf(upload(f, f.agent, PNG_BYTES, target))).to.deep.equal({
        kind: 'not_found',
        message: 'Ticket not found',
      });
    }
    await expectNothingLeft();
  });

  it('refuses a call without a principal (401) and malformed message sequences (400)', async () => {
    expect(await refusalOf(upload(f, {}, PNG_BYTES, { projectId: project, ticketId }))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'Authentication required',
    });
    expect(await refusedUpload(PNG_BYTES, { secondHeader: true })).to.deep.equal({
      kind: 'bad_request',
      message: 'Only the first upload message may carry the header',
    });
    expect(await refusalOf(upload(f, f.agent, PNG_BYTES, { projectId: 0, ticketId }))).to.deep.equal({
      kind: 'bad_request',
      message: 'Project ID is required.',
    });
    const headerless = new Promise((resolve, reject) => {
      const call = f.client.raw.UploadAttachment(
        f.client.callMetadata(f.agent),
        f.client.callOptions(f.agent),
        (error, response) => (error ? reject(error) : resolve(response)),
      );
      call.write({ chunk: PNG_BYTES });
      call.end();
    });
    const error = (await headerless.then(
      () => null,
      (reason: unknown) => reason,
    )) as { details?: string } | null;
    expect(error?.details).to.equal('The first upload message must carry the header');
    await expectNothingLeft();
  });

  it('records nothing when the client cancels mid-upload (the service sees the data end, then the cancel)', async () => {
    const cancelled = await refusedUpload(binaryPng(200 * 1024), {
      filename: 'gone.png',
      cancelAfterBytes: 128 * 1024,
      cancelDelayMs: 300,
    });
    expect(cancelled.kind).to.equal('unavailable');
    await expectNothingLeft();
  });

  it('gives up on an upload cancelled before its call was established (no end, no cancel reaches it)', async () => {
    const cancelled = await refusedUpload(binaryPng(200 * 1024), {
      filename: 'gone.png',
      cancelAfterBytes: 128 * 1024,
    });
    expect(cancelled.kind).to.equal('unavailable');
    // The idle timeout (1 s here) frees the spool file.
    await expectNothingLeft();
  });
});
