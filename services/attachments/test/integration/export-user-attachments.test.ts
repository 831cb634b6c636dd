/**
 * ExportUserAttachments (the data export): the metadata of every live attachment the user uploaded,
 * of any project, in id order; nobody else's and no deleted one; more than one batch; only the user
 * (or an admin, or operator tooling) may ask; a caller that stops reading holds nothing in the
 * database.
 */
import { expect } from 'chai';
import type { OutgoingContext } from '@tix/kit';
import { pausedExport, suiteFixture } from '@tix/kit/testing';
import type { attachment, Principal } from '@tix/protos';
import { EXPORT_BATCH_SIZE } from '../../src/export/export-user-attachments.js';
import { PNG_BYTES, refusalOf, startAttachmentFixture, upload } from './support.js';

describe('attachments: ExportUserAttachments', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startAttachmentFixture());
  let asAdmin: OutgoingContext;

  before(() => {
    const admin: Principal = {
      kind: 'session',
      user_id: f.demo.users.admin.id,
      role: 'admin',
      scopes: ['tickets:read', 'tickets:write', 'tickets:delete'],
    };
    asAdmin = { principal: admin };
  });

  const exportOf = async (userId: number, context: OutgoingContext = f.agent) => {
    const found: attachment.Attachment__Output[] = [];
    for await (const item of f.client.ExportUserAttachments({ user_id: userId }, context)) found.push(item);
    return found;
  };

  it("streams the metadata of the user's live uploads of every project, in id order, and nobody else's", async () => {
    const supportTicket = await f.createTicket('support');
    const platformTicket = await f.createTicket('platform');
    const first = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: supportTicket,
      filename: 'first.png',
    });
    await upload(f, asAdmin, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: supportTicket,
      filename: 'not-mine.png',
    });
    const removed = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.support.id,
      ticketId: supportTicket,
      filename: 'removed.png',
    });
    await f.client.DeleteAttachment({ project_id: f.demo.support.id, id: removed.id }, f.agent);
    const second = await upload(f, f.agent, PNG_BYTES, {
      projectId: f.demo.platform.id,
      ticketId: platformTicket,
      filename: 'second.png',
    });

    expect(await exportOf(f.demo.users.agent.id)).to.deep.equal([first, second]);
  });

  it('streams a set larger than one batch, all of it, in order', async () => {
    const ticketId = await f.createTicket('support');
    const count = EXPORT_BATCH_SIZE + 3;
    await f.sql.query(
      `INSERT INTO attachments (project_id, ticket_id, object_key, original_filename, mime_type, size_bytes,
                                sha256, created_by)
       SELECT $1::int, $2, 'attachments/' || $1::int || '/bulk-' || n, 'bulk-' || n || '.txt', 'text/plain', 10,
              repeat('a', 64), $3
         FROM generate_series(1, $4) AS n`,
      [f.demo.support.id, ticketId, f.demo.users.admin.id, count],
    );
    const exported = await exportOf(f.demo.users.admin.id, asAdmin);
    // The admin's upload of the first test, then the bulk rows.
    expect(exported.length).to.equal(count + 1);
    const ids = exported.map((a) => a.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('is refused to anyone but the user, an admin or operator tooling, and to a project-scoped key', async () => {
    const denied = { kind: 'permission_denied', message: 'You may only export your own data' };
    const firstOf = async (context: OutgoingContext, userId = f.demo.users.admin.id) => {
      for await (const item of f.client.ExportUserAttachments({ user_id: userId }, context)) return item;
      return null;
    };
    expect(await refusalOf(firstOf(f.agent))).to.deep.equal(denied);
    const scoped: OutgoingContext = { principal: { ...f.agent.principal!, project_id: f.demo.support.id } };
    expect(await refusalOf(firstOf(scoped, f.demo.users.agent.id))).to.deep.equal(denied);
    expect(await refusalOf(firstOf(f.agent, 0))).to.deep.equal({
      kind: 'bad_request',
      message: 'Invalid user id',
    });
    expect(await firstOf(asAdmin, f.demo.users.agent.id)).to.not.equal(null);
    expect(await firstOf({})).to.not.equal(null);
  });

  it('holds no connection while its caller does not read, and ends (not completes) when it leaves', async () => {
    const call = f.client.raw.ExportUserAttachments(
      { user_id: f.demo.users.admin.id },
      f.client.callMetadata(asAdmin),
      {},
    );
    const { busyConnections, ended } = await pausedExport(call, f.sql);
    expect(busyConnections).to.equal(0);
    expect(ended).to.not.equal(null);
    expect((await exportOf(f.demo.users.admin.id, asAdmin)).length).to.equal(EXPORT_BATCH_SIZE + 4);
  });
});
