/**
 * Failures around the two stores leave no orphan that matters:
 * - store down during an upload -> 503 `File storage is unavailable`, no row, no event;
 * - store down for a download -> 503 before any byte;
 * - the metadata write failing after the object was stored -> the object is removed again;
 * - store down during a delete -> the delete still succeeds (row + event), the object stays queued
 *   and the sweeper removes it once the store is back.
 */
import { expect } from 'chai';
import {
  attachmentRows,
  download,
  outboxEvents,
  PNG_BYTES,
  refusalOf,
  startAttachmentFixture,
  upload,
  type AttachmentFixture,
} from './support.js';

const UNAVAILABLE = { kind: 'unavailable', message: 'File storage is unavailable' };

describe('store and database failures', function () {
  this.timeout(120_000);
  let f: AttachmentFixture;
  let ticketId: number;
  let project: number;

  before(async () => {
    // The sweeper is driven by hand (runOnce) in these tests.
    f = await startAttachmentFixture({ sweepIntervalMs: 3_600_000 });
    ticketId = await f.createTicket();
    project = f.demo.support.id;
  });
  after(async () => {
    await f.s3.restore().catch(() => undefined);
    await f?.stop();
  });

  it('answers 503 when the store is down during an upload, and records nothing', async () => {
    await f.s3.cut();
    try {
      expect(await refusalOf(upload(f, f.agent, PNG_BYTES, { projectId: project, ticketId }))).to.deep.equal(
        UNAVAILABLE,
      );
    } finally {
      await f.s3.restore();
    }
    expect(await attachmentRows(f.sql)).to.deep.equal([]);
    expect(await outboxEvents(f.sql)).to.deep.equal([]);
    expect(await f.s3.objectKeys()).to.deep.equal([]);
  });

  it('answers 503 for a download while the store is down', async () => {
    const created = await upload(f, f.agent, PNG_BYTES, { projectId: project, ticketId });
    await f.s3.cut();
    try {
      expect(await refusalOf(download(f, f.agent, { projectId: project, id: created.id }))).to.deep.equal(
        UNAVAILABLE,
      );
    } finally {
      await f.s3.restore();
    }
    expect((await download(f, f.agent, { projectId: project, id: created.id })).bytes.equals(PNG_BYTES)).to.be
      .true;
  });

  it('removes the stored object when the metadata write fails after the upload', async () => {
    const rowsBefore = await attachmentRows(f.sql);
    const keysBefore = await f.s3.objectKeys();
    // The outbox insert of the recording transaction fails: the whole transaction rolls back.
    await f.sql.query('ALTER TABLE outbox_events RENAME TO outbox_events_away');
    try {
      expect(await refusalOf(upload(f, f.agent, PNG_BYTES, { projectId: project, ticketId }))).to.deep.equal({
        kind: 'internal',
        message: 'Internal server error',
      });
    } finally {
      await f.sql.query('ALTER TABLE outbox_events_away RENAME TO outbox_events');
    }
    expect(await attachmentRows(f.sql)).to.deep.equal(rowsBefore);
    expect(await f.s3.objectKeys()).to.deep.equal(keysBefore);
  });

  it('deletes while the store is down; the sweeper removes the object once it is back', async () => {
    const created = await upload(f, f.agent, PNG_BYTES, {
      projectId: project,
      ticketId,
      filename: 'later.png',
    });
    const key = (await attachmentRows(f.sql)).find((row) => row.id === created.id)!.object_key as string;
    await f.s3.cut();
    try {
      expect(await f.client.DeleteAttachment({ project_id: project, id: created.id }, f.agent)).to.deep.equal(
        {
          message: 'Attachment deleted',
        },
      );
      expect(
        await refusalOf(f.client.GetAttachment({ project_id: project, id: created.id }, f.agent)),
      ).to.deep.equal({ kind: 'not_found', message: 'Attachment not found' });
      expect(await f.server.sweeper.runOnce()).to.equal(0);
    } finally {
      await f.s3.restore();
    }
    const pending = (await attachmentRows(f.sql)).find((row) => row.id === created.id)!;
    expect(pending.deleted_at).to.be.instanceOf(Date);
    expect(pending.object_removed_at).to.equal(null);
    expect(await f.s3.objectKeys()).to.include(key);

    expect(await f.server.sweeper.runOnce()).to.equal(1);
    expect(await f.s3.objectKeys()).not.to.include(key);
    expect(
      (await attachmentRows(f.sql)).find((row) => row.id === created.id)!.object_removed_at,
    ).to.be.instanceOf(Date);
    expect(await f.server.sweeper.runOnce()).to.equal(0);
    const deletedEvents = (await outboxEvents(f.sql)).filter(
      (event) => event.event_type === 'attachment.deleted',
    );
    expect(deletedEvents).to.have.length(1);
  });
});
