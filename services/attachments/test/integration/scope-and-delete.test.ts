/**
 * Attachments are reachable only inside the caller's project and while their ticket is live: ids of
 * another project, of deleted attachments and of deleted tickets are all 404 `Attachment not found`.
 * A delete removes the object, writes one attachment.deleted, and the attachment is 404 afterwards.
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

const NOT_FOUND = { kind: 'not_found', message: 'Attachment not found' };

describe('project scope and deletion', function () {
  this.timeout(120_000);
  let f: AttachmentFixture;

  before(async () => {
    f = await startAttachmentFixture();
  });
  after(async () => {
    await f?.stop();
  });

  /** get, download and delete of `id` in `projectId` are all 404 Attachment not found. */
  async function expectUnreachable(projectId: number, id: number): Promise<void> {
    const address = { project_id: projectId, id };
    expect(await refusalOf(f.client.GetAttachment(address, f.agent))).to.deep.equal(NOT_FOUND);
    expect(await refusalOf(download(f, f.agent, { projectId, id }))).to.deep.equal(NOT_FOUND);
    expect(await refusalOf(f.client.DeleteAttachment(address, f.agent))).to.deep.equal(NOT_FOUND);
  }

  it("answers 404 for another project's attachment id (get, download, delete) and its ticket (list)", async () => {
    const platformTicket = await f.createTicket('platform');
    const theirs = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.platform.id,
      ticketId: platformTicket,
      filename: 'theirs.png',
    });
    await expectUnreachable(f.demo.support.id, theirs.id);
    expect(
      await refusalOf(
        f.client.ListAttachments({ project_id: f.demo.support.id, ticket_id: platformTicket }, f.agent),
      ),
    ).to.deep.equal({ kind: 'not_found', message: 'Ticket not found' });
    // Still there for its own project.
    expect(
      (await f.client.GetAttachment({ project_id: f.demo.platform.id, id: theirs.id }, f.agent)).id,
    ).to.equal(theirs.id);
  });

  it('answers 404 for unknown ids and for attachments of a deleted ticket', async () => {
    await expectUnreachable(f.demo.support.id, 987_654);
    await expectUnreachable(f.demo.support.id, 0);
    const ticket = await f.createTicket();
    const created = await upload(f, f.agent, PNG_BYTES, { projectId: f.demo.support.id, ticketId: ticket });
    await f.tickets.DeleteTicket({ project_id: f.demo.support.id, id: ticket }, f.agent);
    await expectUnreachable(f.demo.support.id, created.id);
    expect(
      await refusalOf(
        f.client.ListAttachments({ project_id: f.demo.support.id, ticket_id: ticket }, f.agent),
      ),
    ).to.deep.equal({ kind: 'not_found', message: 'Ticket not found' });
    // Restoring the ticket brings its attachments back: nothing was removed.
    await f.tickets.RestoreTicket({ project_id: f.demo.support.id, id: ticket }, f.agent);
    expect(
      (await download(f, f.agent, { projectId: f.demo.support.id, id: created.id })).bytes.equals(PNG_BYTES),
    ).to.be.true;
  });

  it('deletes: 200 with a message, the object removed, one attachment.deleted, then 404 everywhere', async () => {
    const ticket = await f.createTicket();
    const created = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: ticket,
      filename: 'gone.png',
    });
    const row = (await attachmentRows(f.sql)).find((candidate) => candidate.id === created.id)!;
    expect(await f.s3.objectKeys()).to.include(row.object_key);
    const eventsBefore = (await outboxEvents(f.sql)).length;

    expect(
      await f.client.DeleteAttachment({ project_id: f.demo.support.id, id: created.id }, f.agent),
    ).to.deep.equal({
      message: 'Attachment deleted',
    });

    expect(await f.s3.objectKeys()).not.to.include(row.object_key);
    const after = (await attachmentRows(f.sql)).find((candidate) => candidate.id === created.id)!;
    expect(after.deleted_at).to.be.instanceOf(Date);
    expect(after.deleted_by).to.equal(f.demo.users.agent.id);
    expect(after.object_removed_at).to.be.instanceOf(Date);
    const events = (await outboxEvents(f.sql)).slice(eventsBefore);
    expect(events.map((event) => event.event_type)).to.deep.equal(['attachment.deleted']);
    expect(events[0]!.payload).to.deep.include({
      project_id: f.demo.support.id,
      actor: { kind: 'api_key', user_id: f.demo.users.agent.id, api_key_id: null },
      changes: {},
      data: created,
    });
    await expectUnreachable(f.demo.support.id, created.id);
    expect(
      await f.client.ListAttachments({ project_id: f.demo.support.id, ticket_id: ticket }, f.agent),
    ).to.deep.equal({ attachments: [] });
  });

  it('refuses a delete without a principal (401) and records nothing', async () => {
    const ticket = await f.createTicket();
    const created = await upload(f, f.agent, PNG_BYTES, { projectId: f.demo.support.id, ticketId: ticket });
    expect(
      await refusalOf(f.client.DeleteAttachment({ project_id: f.demo.support.id, id: created.id }, {})),
    ).to.deep.equal({ kind: 'unauthenticated', message: 'Authentication required' });
    expect(
      (await f.client.GetAttachment({ project_id: f.demo.support.id, id: created.id }, f.agent)).id,
    ).to.equal(created.id);
  });
});
