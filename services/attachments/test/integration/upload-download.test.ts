/**
 * Uploads and downloads through the real service (ticket + lookup services, PostgreSQL, s3rver):
 * the exact bytes come back in small messages, what is recorded (type from the bytes, cleaned
 * filename, random key, hash), what is stored, the list, and one attachment.created per upload.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { expect } from 'chai';
import { CHUNK_BYTES } from '../../src/testing.js';
import {
  attachmentRows,
  binaryPng,
  download,
  outboxEvents,
  PNG_BYTES,
  startAttachmentFixture,
  upload,
  type AttachmentFixture,
} from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('upload and download (real store and services)', function () {
  this.timeout(120_000);
  let f: AttachmentFixture;
  let ticketId: number;

  before(async () => {
    f = await startAttachmentFixture();
    ticketId = await f.createTicket();
  });
  after(async () => {
    await f?.stop();
  });

  it('returns the exact bytes of a binary file, in chunks of at most 16 KiB, after the attachment', async () => {
    const bytes = binaryPng(1_000_003);
    const created = await upload(f, f.agent, bytes, {
      projectId: f.demo.support.id,
      ticketId,
      filename: 'Résumé "final" 履歴書.png',
      declaredType: 'image/png',
    });
    expect(created).to.deep.include({
      ticket_id: ticketId,
      original_filename: 'Résumé "final" 履歴書.png',
      mime_type: 'image/png',
      size_bytes: 1_000_003,
    });
    expect(created.created_at).to.match(ISO);

    const fetched = await download(f, f.agent, { projectId: f.demo.support.id, id: created.id });
    expect(fetched.attachment).to.deep.equal(created);
    expect(fetched.bytes.equals(bytes)).to.equal(true);
    // One attachment message, then the bytes in pieces of at most 16 KiB (download() checks each size).
    expect(fetched.messages).to.be.at.least(1 + Math.ceil(1_000_003 / CHUNK_BYTES));
  });

  it('records a random key under the project, the hash and the uploader, and stores exactly that object', async () => {
    const before = await f.s3.objectKeys();
    const created = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId,
      filename: '../../etc/passwd.png',
      declaredType: 'application/octet-stream',
    });
    const row = (await attachmentRows(f.sql)).find((candidate) => candidate.id === created.id)!;
    expect(row.object_key).to.match(new RegExp(`^attachments/${f.demo.support.id}/[0-9a-f-]{36}$`));
    expect(row).to.deep.include({
      project_id: f.demo.support.id,
      ticket_id: ticketId,
      original_filename: 'passwd.png',
      mime_type: 'image/png',
      size_bytes: PNG_BYTES.length,
      sha256: createHash('sha256').update(PNG_BYTES).digest('hex'),
      created_by: f.demo.users.agent.id,
      deleted_at: null,
    });
    expect(await f.s3.objectKeys()).to.deep.equal([...before, row.object_key as string].sort());
    expect(await readdir(f.server.spoolDir)).to.deep.equal([]);
  });

  it('stores text only on a text claim, as the claimed type', async () => {
    const csv = Buffer.from('name,city\nZoë,Zürich\n', 'utf8');
    const created = await upload(f, f.agent, csv, {
      projectId: f.demo.support.id,
      ticketId,
      filename: 'people.csv',
      declaredType: 'text/csv; charset=utf-8',
    });
    expect(created.mime_type).to.equal('text/csv');
    expect(
      (await download(f, f.agent, { projectId: f.demo.support.id, id: created.id })).bytes.equals(csv),
    ).to.equal(true);
  });

  it('round-trips a 20 MB file byte for byte', async () => {
    const bytes = binaryPng(20 * 1024 * 1024);
    const created = await upload(f, f.agent, bytes, {
      projectId: f.demo.support.id,
      ticketId,
      filename: 'big.png',
      declaredType: 'image/png',
    });
    expect(created.size_bytes).to.equal(bytes.length);
    const fetched = await download(f, f.agent, { projectId: f.demo.support.id, id: created.id });
    expect(createHash('sha256').update(fetched.bytes).digest('hex')).to.equal(
      createHash('sha256').update(bytes).digest('hex'),
    );
  });

  it('lists the live attachments of the ticket oldest first, and gets one by id', async () => {
    const other = await f.createTicket();
    const first = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: other,
      filename: 'a.png',
    });
    const second = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: other,
      filename: 'b.png',
    });
    const list = await f.client.ListAttachments({ project_id: f.demo.support.id, ticket_id: other }, f.agent);
    expect(list).to.deep.equal({ attachments: [first, second] });
    expect(
      await f.client.GetAttachment({ project_id: f.demo.support.id, id: second.id }, f.agent),
    ).to.deep.equal(second);
  });

  it('writes exactly one attachment.created per upload, carrying the attachment as the API shows it', async () => {
    const ticket = await f.createTicket();
    const before = (await outboxEvents(f.sql)).length;
    const created = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: ticket,
      filename: 'x.png',
    });
    const events = (await outboxEvents(f.sql)).slice(before);
    expect(events).to.have.length(1);
    expect(events[0]!.event_type).to.equal('attachment.created');
    expect(events[0]!.payload).to.deep.include({
      type: 'attachment.created',
      source: 'attachments',
      project_id: f.demo.support.id,
      occurred_at: created.created_at,
      actor: { kind: 'api_key', user_id: f.demo.users.agent.id, api_key_id: null },
      changes: {},
      data: {
        id: created.id,
        ticket_id: ticket,
        original_filename: 'x.png',
        mime_type: 'image/png',
        size_bytes: PNG_BYTES.length,
        created_at: created.created_at,
      },
    });
  });
});
